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

package framework

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/onsi/ginkgo/v2"
)

// Process is something a test runs in the background (an operator, a
// consumer's manager, a kubelet stand-in) until Stop.
type Process struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	once   sync.Once
}

// Go runs run in the background with a context that Stop (or ctx) ends.
func Go(ctx context.Context, run func(context.Context) error) *Process {
	pctx, cancel := context.WithCancel(ctx)
	p := &Process{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if err := run(pctx); err != nil && !errors.Is(err, context.Canceled) {
			p.err = err
		}
	}()
	return p
}

// GoInSpec is Go for a ginkgo suite: an error the process returns while it
// should still run fails the running spec at once.
func GoInSpec(ctx context.Context, name string, run func(context.Context) error) *Process {
	return Go(ctx, func(ctx context.Context) error {
		err := run(ctx)
		if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
			defer ginkgo.GinkgoRecover()
			ginkgo.Fail(fmt.Sprintf("%s stopped: %v", name, err))
		}
		return err
	})
}

// Stop ends the process and waits for it; it returns the error the process
// ended with (none when it ended because it was stopped). Stopping it again
// returns the same.
func (p *Process) Stop() error {
	p.once.Do(p.cancel)
	<-p.done
	return p.err
}

// Done is closed once the process has returned.
func (p *Process) Done() <-chan struct{} { return p.done }
