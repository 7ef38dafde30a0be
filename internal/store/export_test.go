package store

// SetSearchDrive makes Search read from the index first whenever the
// required terms match fewer than n documents (n > 0), or never (n < 0),
// so a test can compare both ways of reading on a small archive.
func SetSearchDrive(s *Store, n int) { s.searchDrive = n }
