package cluster

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// StopOnSignal stops the cluster and exits with status 130 when the process
// gets SIGINT or SIGTERM, so an interrupted demo or benchmark leaves no
// control-plane processes behind. The returned function removes the handler.
func (c *Cluster) StopOnSignal() (cancel func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			fmt.Fprintf(os.Stderr, "\n%s: stopping the local control plane\n", sig)
			if err := c.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
