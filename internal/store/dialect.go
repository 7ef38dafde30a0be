package store

import "io/fs"

// dialect is everything that differs between the databases Monitor runs on.
// Queries elsewhere in this package are written once, in the SQL both
// understand ($1 placeholders, ON CONFLICT, RETURNING).
type dialect interface {
	// name is "sqlite" or "postgres".
	name() string
	// migrations holds this dialect's numbered migration files.
	migrations() fs.FS
	// isUniqueViolation reports whether err is a unique or primary key
	// constraint failure.
	isUniqueViolation(err error) bool
	// tableExistsQuery counts the tables named $1 in the current schema.
	tableExistsQuery() string
}
