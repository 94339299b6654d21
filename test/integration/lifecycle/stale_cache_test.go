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

package lifecycle_test

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	lifecyclectrl "podnetwork.io/operator/controllers/lifecycle"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/test/framework"
)

// laggingClient is the lifecycle controller's client with a cache that lags
// behind the controller's own status writes, as in issue #31 (RangeDraining
// emitted twice, 40 ms apart, from resourceVersions 581 and 586): the first
// read of PodNetwork "default" after a successful status apply computed from
// a current read returns the version that write was computed from, as an
// informer that has not yet seen the write would; the read after it is
// current again. It records every status apply.
type laggingClient struct {
	client.Client
	// watched is the range whose phases are recorded.
	watched string

	mu sync.Mutex
	// lastRead is the PodNetwork the last read returned, lastReadStale
	// whether it was a stale copy; stale, when set, is what the next read
	// returns instead of the cache's.
	lastRead, stale *v1alpha1.PodNetwork
	lastReadStale   bool
	// phases is the phase of the watched range at each resourceVersion read.
	phases     map[string]v1alpha1.RangePhase
	staleReads int
	conflicts  int
	writes     []statusWrite
}

// statusWrite is one successful status apply: the resourceVersion it was
// conditional on, the phase of the watched range at that version, and the
// phase it wrote.
type statusWrite struct {
	fromVersion string
	from, to    v1alpha1.RangePhase
}

func newLaggingClient(c client.Client, watched string) *laggingClient {
	return &laggingClient{Client: c, watched: watched, phases: map[string]v1alpha1.RangePhase{}}
}

func (c *laggingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	pn, ok := obj.(*v1alpha1.PodNetwork)
	if !ok || key.Name != v1alpha1.PodNetworkName {
		return c.Client.Get(ctx, key, obj, opts...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastReadStale = c.stale != nil
	if c.stale != nil {
		c.stale.DeepCopyInto(pn)
		c.stale = nil
		c.staleReads++
	} else if err := c.Client.Get(ctx, key, pn, opts...); err != nil {
		return err
	}
	c.lastRead = pn.DeepCopy()
	c.phases[pn.ResourceVersion] = phaseIn(&pn.Status, c.watched)
	return nil
}

func (c *laggingClient) Status() client.SubResourceWriter {
	return laggingStatus{SubResourceWriter: c.Client.Status(), c: c}
}

type laggingStatus struct {
	client.SubResourceWriter
	c *laggingClient
}

func (s laggingStatus) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var sent v1alpha1.PodNetwork
	if err := json.Unmarshal(body, &sent); err != nil {
		return err
	}
	err = s.SubResourceWriter.Apply(ctx, obj, opts...)
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if apierrors.IsConflict(err) {
		s.c.conflicts++
	}
	if err != nil {
		return err
	}
	s.c.writes = append(s.c.writes, statusWrite{
		fromVersion: sent.ResourceVersion,
		from:        s.c.phases[sent.ResourceVersion],
		to:          phaseIn(&sent.Status, s.c.watched),
	})
	// The cache has not seen this write yet (one write behind at most).
	if !s.c.lastReadStale {
		s.c.stale = s.c.lastRead
	}
	return nil
}

func phaseIn(s *v1alpha1.PodNetworkStatus, name string) v1alpha1.RangePhase {
	if rs := s.FindRange(name); rs != nil {
		return rs.Phase
	}
	return ""
}

// report returns what the client saw, under its lock.
func (c *laggingClient) report() (staleReads, conflicts int, writes []statusWrite) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.staleReads, c.conflicts, append([]statusWrite(nil), c.writes...)
}

// startLaggingLifecycle runs only the lifecycle controller, as the operator
// sets it up but reading and writing through lag, with its own metrics.
func startLaggingLifecycle(lag func(client.Client) *laggingClient, m *metrics.Metrics) *framework.Process {
	mgr, err := ctrl.NewManager(suite.ControlPlane.Config, ctrl.Options{
		Scheme:                 controllers.Scheme(),
		Cache:                  watches.CacheOptions(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	r := &lifecyclectrl.Reconciler{
		Client:   lag(mgr.GetClient()),
		Cache:    mgr.GetCache(),
		Recorder: mgr.GetEventRecorder("podnetwork-lifecycle"),
		Metrics:  m,
	}
	Expect(r.SetupWithManager(mgr)).To(Succeed())
	return framework.StartManager(ctx, "the lifecycle controller with a lagging cache", mgr)
}

// transitionEvents returns the events of reason about range name of the
// PodNetwork with uid, and how many times each was emitted.
func transitionEvents(uid types.UID, name, reason string) []int32 {
	var counts []int32
	for _, ev := range k8sClient.Events("PodNetwork") {
		if ev.Regarding.UID == uid && ev.Regarding.FieldPath == "status.ranges{"+name+"}" && ev.Reason == reason {
			counts = append(counts, seriesCount(&ev))
		}
	}
	return counts
}

func seriesCount(ev *eventsv1.Event) int32 {
	if ev.Series == nil {
		return 1
	}
	return ev.Series.Count
}

var _ = Describe("The range lifecycle with a cache behind its own writes", Serial, func() {
	It("writes, announces and counts each transition once", func() {
		var lag *laggingClient
		m := metrics.New()
		reg := prometheus.NewRegistry()
		Expect(m.Register(reg)).To(Succeed())
		newLifecycleFixtureWith(func() *framework.Process {
			return startLaggingLifecycle(func(c client.Client) *laggingClient {
				lag = newLaggingClient(c, "pods-1")
				return lag
			}, m)
		})

		createPodNetwork("pods-1", "10.69.0.0/16")
		Eventually(k8sClient.Phase).WithArguments("pods-1").Should(Equal(v1alpha1.RangePhaseActive))
		uid := k8sClient.GetPodNetwork().UID
		By("removing the range: Draining, Released, purged")
		removeRanges()
		Eventually(k8sClient.Phase).WithArguments("pods-1").Should(BeEmpty())

		By("announcing each transition with exactly one event")
		reasons := []string{"RangePending", "RangeActivated", "RangeDraining", "RangeReleased", "RangePurged"}
		emitted := func() map[string][]int32 {
			out := map[string][]int32{}
			for _, reason := range reasons {
				out[reason] = transitionEvents(uid, "pods-1", reason)
			}
			return out
		}
		once := map[string][]int32{}
		for _, reason := range reasons {
			once[reason] = []int32{1}
		}
		// Events are emitted after the write they announce, and recorded
		// asynchronously: wait for the last one, then check each is there
		// once and no second one follows.
		Eventually(transitionEvents).WithArguments(uid, "pods-1", "RangePurged").ShouldNot(BeEmpty())
		Consistently(emitted, 2*time.Second).Should(Equal(once))

		By("counting each transition once")
		for _, phase := range []string{"Pending", "Active", "Draining", "Released"} {
			Expect(metricValueIn(reg, "podnetwork_range_transitions_total", map[string]string{"phase": phase})).
				To(HaveValue(Equal(1.0)), phase)
		}

		By("refusing the writes computed from the stale reads")
		staleReads, conflicts, writes := lag.report()
		Expect(staleReads).To(BeNumerically(">", 0), "the lifecycle read a PodNetwork older than its own last write")
		Expect(conflicts).To(BeNumerically(">", 0), "a status write computed from a stale read conflicted")
		drained := 0
		for _, w := range writes {
			Expect(w.fromVersion).NotTo(BeEmpty(), "every status apply carries the resourceVersion it was computed from")
			if w.from == v1alpha1.RangePhaseActive && w.to == v1alpha1.RangePhaseDraining {
				drained++
			}
		}
		Expect(drained).To(Equal(1), "one successful status write moved pods-1 from Active to Draining: %+v", writes)
	})
})
