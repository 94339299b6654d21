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

package nodeipam_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	nodeipamctrl "podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/test/framework"
)

// leaseNamespace holds the leader-election Lease in the specs that elect.
const leaseNamespace = "kube-system"

// operator is one in-process operator (one "replica") and the writes it
// made.
type operator struct {
	*framework.Process
	writes *writeRecorder
}

// kill stops the operator as SIGKILL would: from this moment no request of
// it reaches the API server (no last status write, no lease release), then
// its goroutines end.
func (op *operator) kill() {
	GinkgoHelper()
	op.writes.cut()
	Expect(op.Stop()).To(Succeed())
}

// startOperator runs the operator's manager, NodeIPAM and lifecycle
// controller included, until stopped or the end of the spec (before the
// cluster is reset). mutate adjusts the options.
func startOperator(mutate ...func(*controllers.Options)) *operator {
	op := &operator{writes: &writeRecorder{}}
	cfg := rest.CopyConfig(suite.ControlPlane.Config)
	cfg.Wrap(op.writes.wrap)
	op.Process = framework.StartOperator(suiteCtx, cfg, append([]func(*controllers.Options){func(o *controllers.Options) {
		o.KubeAPIQPS, o.KubeAPIBurst = 500, 1000
		o.NodeIPAM.StatusInterval = 200 * time.Millisecond
	}}, mutate...)...)
	DeferCleanup(op.Stop)
	return op
}

// writeRecorder records every request that is not a read, except the
// leader-election Lease traffic, made through a client configuration.
type writeRecorder struct {
	mu     sync.Mutex
	writes []string
	// dead is set by cut: every request fails before it is sent.
	dead bool
}

// errKilled is what every request of a killed operator gets.
var errKilled = errors.New("the operator was killed")

func (w *writeRecorder) cut() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dead = true
}

func (w *writeRecorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		w.mu.Lock()
		dead := w.dead
		w.mu.Unlock()
		if dead {
			return nil, errKilled
		}
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if !strings.Contains(req.URL.Path, "/apis/coordination.k8s.io/") {
				w.mu.Lock()
				w.writes = append(w.writes, req.Method+" "+req.URL.Path)
				w.mu.Unlock()
			}
		}
		return rt.RoundTrip(req)
	})
}

func (w *writeRecorder) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.writes)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// recordRanges records the PodNetwork for the rest of the spec, so the
// invariant checker sees every phase the ranges go through.
func recordRanges() *framework.Recorder {
	rec, err := framework.Record(suiteCtx, k8sClient, &podnetworkv1alpha1.PodNetworkList{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(rec.Stop)
	return rec
}

// expectInvariants checks every node against the ranges recorded Active.
func expectInvariants(history *framework.Recorder) {
	GinkgoHelper()
	Expect(history.CheckCluster(suiteCtx, k8sClient)).To(Succeed())
}

// createPodNetwork creates PodNetwork "default".
func createPodNetwork(delaySeconds int32, when podnetworkv1alpha1.WhenExhaustedPolicy, ranges ...podnetworkv1alpha1.PodCIDRRange) {
	GinkgoHelper()
	Expect(k8sClient.Create(suiteCtx, framework.PodNetwork().RecycleDelaySeconds(delaySeconds).WhenExhausted(when).Ranges(ranges...).Obj())).To(Succeed())
}

// addRange appends a range to the spec.
func addRange(r podnetworkv1alpha1.PodCIDRRange) {
	GinkgoHelper()
	Expect(k8sClient.EditRanges(func(rs []podnetworkv1alpha1.PodCIDRRange) []podnetworkv1alpha1.PodCIDRRange { return append(rs, r) })).To(Succeed())
}

// replaceRanges makes the spec's ranges exactly rs.
func replaceRanges(rs ...podnetworkv1alpha1.PodCIDRRange) {
	GinkgoHelper()
	Expect(k8sClient.EditRanges(func([]podnetworkv1alpha1.PodCIDRRange) []podnetworkv1alpha1.PodCIDRRange { return rs })).To(Succeed())
}

// podCIDRsOf returns a node's podCIDRs.
func podCIDRsOf(name string) func() []string {
	return func() []string {
		n := &corev1.Node{}
		if err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: name}, n); err != nil {
			return []string{"error: " + err.Error()}
		}
		return n.Spec.PodCIDRs
	}
}

// allHavePodCIDRs reports whether every named node has podCIDRs.
func allHavePodCIDRs(names []string) func() []string {
	return func() []string {
		var missing []string
		for _, name := range names {
			if len(podCIDRsOf(name)()) == 0 {
				missing = append(missing, name)
			}
		}
		return missing
	}
}

// touchNode changes a label of the node, which makes NodeIPAM retry a node
// still without podCIDRs at once.
func touchNode(name string) {
	GinkgoHelper()
	Eventually(func() error {
		n := &corev1.Node{}
		if err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: name}, n); err != nil {
			return err
		}
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels["test.podnetwork.io/touched"] = fmt.Sprint(time.Now().UnixNano())
		return k8sClient.Update(suiteCtx, n)
	}).Should(Succeed())
}

// touchPodNetwork changes an annotation of the PodNetwork, which makes
// NodeIPAM's network reconciler report at once: after a step of the fake
// clock, its own requeue still waits in real time.
func touchPodNetwork() {
	GinkgoHelper()
	Eventually(func() error {
		pn := k8sClient.GetPodNetwork()
		patch := client.MergeFrom(pn.DeepCopy())
		if pn.Annotations == nil {
			pn.Annotations = map[string]string{}
		}
		pn.Annotations["test.podnetwork.io/touched"] = fmt.Sprint(time.Now().UnixNano())
		return k8sClient.Patch(suiteCtx, pn, patch)
	}).Should(Succeed())
}

func deleteNode(name string) {
	GinkgoHelper()
	Expect(client.IgnoreNotFound(k8sClient.Delete(suiteCtx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
}

// cidrNotAvailable returns the notes of the CIDRNotAvailable events about
// the node object with the given UID, one per occurrence (a repeated event
// counts its series).
func cidrNotAvailable(uid func() string) func() []string {
	return func() []string {
		var list eventsv1.EventList
		Expect(k8sClient.List(suiteCtx, &list)).To(Succeed())
		var out []string
		for _, ev := range list.Items {
			if ev.Reason != nodeipamctrl.CIDRNotAvailableReason || string(ev.Regarding.UID) != uid() {
				continue
			}
			Expect(ev.Type).To(Equal(corev1.EventTypeWarning))
			n := 1
			if ev.Series != nil {
				n = int(ev.Series.Count)
			}
			for range n {
				out = append(out, ev.Note)
			}
		}
		return out
	}
}

// uidOf returns the UID of a node.
func uidOf(name string) func() string {
	return func() string {
		n := &corev1.Node{}
		Expect(k8sClient.Get(suiteCtx, client.ObjectKey{Name: name}, n)).To(Succeed())
		return string(n.UID)
	}
}

// resetCluster removes everything a spec created (framework.API.ResetCluster)
// and the leader-election Lease and NodeIPAM's issued-block record.
func resetCluster() {
	GinkgoHelper()
	k8sClient.ResetCluster(
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leaseNamespace, Name: controllers.LeaderElectionID}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: framework.RecordNamespace, Name: nodeipamctrl.RecordName}},
	)
}
