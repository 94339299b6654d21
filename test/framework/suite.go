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

// RunSuite runs a ginkgo suite whose Eventually waits up to timeout, polling
// every poll.
func RunSuite(t *testing.T, name string, timeout, poll time.Duration) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	gomega.SetDefaultEventuallyTimeout(timeout)
	gomega.SetDefaultEventuallyPollingInterval(poll)
	ginkgo.RunSpecs(t, name)
}

// StartSuite, in a BeforeSuite, logs to the GinkgoWriter, starts the control
// plane and returns it with a context; both end with the suite.
func StartSuite(opts ControlPlaneOptions) (context.Context, *ControlPlane) {
	ginkgo.GinkgoHelper()
	logf.SetLogger(zap.New(zap.WriteTo(ginkgo.GinkgoWriter), zap.UseDevMode(true)))
	cp, err := StartControlPlane(opts)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func() { gomega.Expect(cp.Stop()).To(gomega.Succeed()) })
	ctx, cancel := context.WithCancel(context.Background())
	ginkgo.DeferCleanup(cancel)
	return ctx, cp
}
