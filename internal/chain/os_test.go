package chain_test

import "os"

var osStat = os.Stat
