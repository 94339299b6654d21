/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package cluster

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// StopOnSignal stops the cluster and exits with status 130 when the process
// gets SIGINT or SIGTERM, so an interrupted demo or benchmark leaves no
// control-plane processes behind. The returned function removes the handler;
// calling it again does nothing (make demo DEMO_FLAGS=--keep removed it on
// Ctrl-C and again on the way out, which closed a closed channel).
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
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}
