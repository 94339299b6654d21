// Package kstatus_test reads PodNetwork and PodNetworkConsumer objects with
// the real kstatus library (sigs.k8s.io/cli-utils/pkg/kstatus), as Flux,
// Argo CD and kpt do, in every situation the operator can leave them in, on
// a real kube-apiserver with the lifecycle controller running.
package kstatus_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	"podnetwork.io/operator/test/refconsumer"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var (
	testCluster *cluster.Cluster
	k8sClient   client.Client
	ctx         context.Context
	cancel      context.CancelFunc
)

func TestKstatus(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(60 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "kstatus Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	var err error
	testCluster, err = cluster.Start(cluster.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
	})
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(testCluster.Config, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if testCluster != nil {
		Expect(testCluster.Stop()).To(Succeed())
	}
})

// kstatusOf computes the kstatus of an object as read from the API.
func kstatusOf(obj client.Object) func() status.Status {
	return func() status.Status {
		// Read as unstructured: kstatus must see what the API serves (the
		// defaulted observedGeneration 0 included), not a typed round trip
		// that drops zero values.
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(kindOf(obj)))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), u)).To(Succeed())
		res, err := status.Compute(u)
		Expect(err).NotTo(HaveOccurred())
		return res.Status
	}
}

func kindOf(obj client.Object) string {
	if _, ok := obj.(*v1alpha1.PodNetworkConsumer); ok {
		return "PodNetworkConsumer"
	}
	return "PodNetwork"
}

func setRanges(ranges ...v1alpha1.PodCIDRRange) {
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn := &v1alpha1.PodNetwork{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
			return err
		}
		pn.Spec.Ranges = ranges
		return k8sClient.Update(ctx, pn)
	})).To(Succeed())
}

var _ = Describe("kstatus reads the operator's status", Ordered, func() {
	pn := &v1alpha1.PodNetwork{}
	pn.Name = v1alpha1.PodNetworkName
	plugin := &v1alpha1.PodNetworkConsumer{}
	plugin.Name = "plugin"
	var rejectNew, hold atomic.Bool

	It("sees a PodNetwork no controller has reconciled yet as InProgress", func() {
		pn.Spec.Ranges = []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}}
		Expect(k8sClient.Create(ctx, pn)).To(Succeed())
		Expect(kstatusOf(pn)()).To(Equal(status.InProgressStatus))
	})

	It("sees a consumer that has not answered yet as InProgress", func() {
		plugin.Spec.Required = ptr.To(true)
		Expect(k8sClient.Create(ctx, plugin)).To(Succeed())
		Expect(kstatusOf(plugin)()).To(Equal(status.InProgressStatus))
	})

	It("sees a PodNetwork whose ranges are in transition as InProgress, then Current once all are Active", func() {
		hold.Store(true)
		mgr, err := ctrl.NewManager(testCluster.Config, ctrl.Options{
			Scheme: controllers.Scheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		})
		Expect(err).NotTo(HaveOccurred())
		c := &refconsumer.Consumer{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Name: "plugin", Required: true,
			Reject: func(rs v1alpha1.RangeStatus) string {
				if rejectNew.Load() && rs.Name != "a" {
					return "plugin cannot route " + rs.CIDR
				}
				return ""
			},
			Hold: func(v1alpha1.RangeStatus) bool { return hold.Load() },
		}
		Expect(c.SetupWithManager(mgr)).To(Succeed())
		go func() {
			defer GinkgoRecover()
			Expect(mgr.Start(ctx)).To(Succeed())
		}()
		opts := controllers.DefaultOptions()
		opts.LeaderElect = false
		opts.MetricsBindAddress, opts.HealthProbeBindAddress = "0", "0"
		opts.SkipControllerNameValidation = true
		opts.NodeIPAM.Enabled = false
		go func() {
			defer GinkgoRecover()
			Expect(controllers.Run(ctx, testCluster.Config, opts)).To(Succeed())
		}()

		Eventually(func() int64 {
			_ = k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), pn)
			return pn.Status.ObservedGeneration
		}).
			Should(Equal(pn.Generation))
		Eventually(kstatusOf(pn)).Should(Equal(status.InProgressStatus))
		Consistently(kstatusOf(pn), "1s").Should(Equal(status.InProgressStatus))

		hold.Store(false)
		Eventually(kstatusOf(pn)).Should(Equal(status.CurrentStatus))
		Eventually(kstatusOf(plugin)).Should(Equal(status.CurrentStatus))
	})

	It("sees a PodNetwork blocked by a consumer's rejection as Failed", func() {
		rejectNew.Store(true)
		setRanges(v1alpha1.PodCIDRRange{Name: "a", CIDR: "10.244.0.0/16"}, v1alpha1.PodCIDRRange{Name: "b", CIDR: "10.245.0.0/16"})
		Eventually(kstatusOf(pn)).Should(Equal(status.FailedStatus))
		rejectNew.Store(false)
		Eventually(kstatusOf(pn)).Should(Equal(status.CurrentStatus))
	})

	It("sees a PodNetwork blocked by an invalid range as Failed", func() {
		setRanges(v1alpha1.PodCIDRRange{Name: "a", CIDR: "10.244.0.0/16"}, v1alpha1.PodCIDRRange{Name: "svc", CIDR: "10.96.0.0/16"})
		Eventually(kstatusOf(pn)).Should(Equal(status.FailedStatus))
		setRanges(v1alpha1.PodCIDRRange{Name: "a", CIDR: "10.244.0.0/16"})
		Eventually(kstatusOf(pn)).Should(Equal(status.CurrentStatus))
	})

	It("sees a PodNetwork being deleted as Terminating", func() {
		// kstatus gives every object with a deletionTimestamp the status
		// Terminating, before it looks at conditions; the finalizer keeps
		// the object until its ranges are released.
		hold.Store(true)
		Expect(k8sClient.Delete(ctx, pn)).To(Succeed())
		Eventually(kstatusOf(pn)).Should(Equal(status.TerminatingStatus))
		hold.Store(false)
		Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), pn) }).ShouldNot(Succeed())
	})
})
