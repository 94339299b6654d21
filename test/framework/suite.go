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
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// Suite is a ginkgo suite on its own control plane. NewSuite registers the
// BeforeSuite that starts it; until then only Ctx is usable, and API and
// ControlPlane are filled in place, so packages can alias them:
//
//	var (
//		suite     = framework.NewSuite("Controllers Suite", framework.ControlPlaneOptions{})
//		ctx       = suite.Ctx
//		k8sClient = suite.API
//	)
//
//	func TestControllers(t *testing.T) { suite.Run(t, 30*time.Second, 100*time.Millisecond) }
type Suite struct {
	Name         string
	Ctx          context.Context
	API          *API
	ControlPlane *ControlPlane
}

// NewSuite declares a suite whose BeforeSuite starts a control plane with
// opts; the context ends and the control plane stops with the suite. Call it
// once per package, at package level.
func NewSuite(name string, opts ControlPlaneOptions) *Suite {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Suite{Name: name, Ctx: ctx, API: &API{}, ControlPlane: &ControlPlane{}}
	ginkgo.BeforeSuite(func() {
		cp := startControlPlane(opts)
		// Cleanups run last in, first out: the context ends, so what runs
		// on it stops, before the control plane does.
		ginkgo.DeferCleanup(cancel)
		*s.ControlPlane = *cp
		*s.API = NewAPI(ctx, cp.Client)
	})
	return s
}

// Run runs the suite's specs; Eventually waits up to timeout, polling every
// poll.
func (s *Suite) Run(t *testing.T, timeout, poll time.Duration) { RunSuite(t, s.Name, timeout, poll) }

// RunSuite runs a ginkgo suite whose Eventually waits up to timeout, polling
// every poll.
func RunSuite(t *testing.T, name string, timeout, poll time.Duration) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	gomega.SetDefaultEventuallyTimeout(timeout)
	gomega.SetDefaultEventuallyPollingInterval(poll)
	ginkgo.RunSpecs(t, name)
}

// StartSuite, in a BeforeSuite, logs to the GinkgoWriter, starts the control
// plane and returns it with a context; both end with the suite. Suites that
// need nothing else before or after use NewSuite.
func StartSuite(opts ControlPlaneOptions) (context.Context, *ControlPlane) {
	ginkgo.GinkgoHelper()
	cp := startControlPlane(opts)
	ctx, cancel := context.WithCancel(context.Background())
	ginkgo.DeferCleanup(cancel)
	return ctx, cp
}

// startControlPlane, in a BeforeSuite, logs to the GinkgoWriter and starts
// the control plane until the suite ends.
func startControlPlane(opts ControlPlaneOptions) *ControlPlane {
	ginkgo.GinkgoHelper()
	logf.SetLogger(zap.New(zap.WriteTo(ginkgo.GinkgoWriter), zap.UseDevMode(true)))
	cp, err := StartControlPlane(opts)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func() { gomega.Expect(cp.Stop()).To(gomega.Succeed()) })
	return cp
}
