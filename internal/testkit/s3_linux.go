package testkit

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal has the kernel kill the server if the test process
// dies without running its cleanups (a -timeout panic, a kill).
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
