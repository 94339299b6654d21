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

package badinput_test

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework"
)

// startOperator runs the operator, NodeIPAM and lifecycle included, against
// cfg until it is stopped or the spec ends.
func startOperator(cfg *rest.Config) *framework.Process {
	p := framework.StartOperator(suiteCtx, cfg, func(o *controllers.Options) {
		o.KubeAPIQPS, o.KubeAPIBurst = 500, 1000
		o.NodeIPAM.StatusInterval = 200 * time.Millisecond
	})
	DeferCleanup(p.Stop)
	return p
}

// createPodNetwork creates PodNetwork "default" with the ranges and no
// recycle delay.
func createPodNetwork(api *framework.API, ranges ...v1alpha1.PodCIDRRange) {
	GinkgoHelper()
	Expect(api.Create(suiteCtx, framework.PodNetwork().RecycleDelaySeconds(0).Ranges(ranges...).Obj())).To(Succeed())
}

// setRanges makes the spec's ranges exactly rs.
func setRanges(api *framework.API, rs ...v1alpha1.PodCIDRRange) {
	GinkgoHelper()
	Expect(api.EditRanges(func([]v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange { return rs })).To(Succeed())
}

// createNode creates a node, with podCIDRs if any are given.
func createNode(api *framework.API, name string, podCIDRs ...string) {
	GinkgoHelper()
	Expect(api.Create(suiteCtx, framework.Node(name).PodCIDRs(podCIDRs...).Obj())).To(Succeed())
}

func deleteNode(api *framework.API, name string) {
	GinkgoHelper()
	Expect(client.IgnoreNotFound(api.Delete(suiteCtx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
}

// podCIDRsOf returns a node's podCIDRs.
func podCIDRsOf(api *framework.API, name string) func() []string {
	return func() []string {
		n := &corev1.Node{}
		if err := api.Get(suiteCtx, client.ObjectKey{Name: name}, n); err != nil {
			return []string{"error: " + err.Error()}
		}
		return n.Spec.PodCIDRs
	}
}

// ack makes consumer name accept the current phase of every range, as a
// real consumer writes its status.
func ack(api *framework.API, name string) {
	GinkgoHelper()
	Eventually(func() error {
		pn, err := api.PodNetwork()
		if err != nil {
			return err
		}
		c := &v1alpha1.PodNetworkConsumer{}
		if err := api.Get(suiteCtx, client.ObjectKey{Name: name}, c); err != nil {
			return err
		}
		c.Status.Ranges = v1alpha1.Acks(pn, c.Status.Ranges, metav1.Now(), func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
			return v1alpha1.AckAccepted, "applied", true
		})
		return api.Status().Update(suiteCtx, c, client.FieldOwner(name))
	}).Should(Succeed())
}

// The range most specs work with.
const (
	podsRange = "pods"
	podsCIDR  = "10.244.0.0/16"
)

// podsAck returns "<phase>/<result>" of a consumer's acknowledgement of
// range pods, "" when there is none.
func podsAck(api *framework.API, consumer string) func() string {
	return func() string {
		if a := api.Ack(consumer, podsRange); a != nil {
			return string(a.Phase) + "/" + string(a.Result)
		}
		return ""
	}
}

// notes returns the notes of the events with the given reason about
// objects of kind, in any namespace, each checked against the API's limits.
func notes(api *framework.API, kind, reason string) func() []string {
	return func() []string {
		var out []string
		for _, ev := range api.Events(kind) {
			if ev.Reason != reason {
				continue
			}
			Expect(len(ev.Note)).To(BeNumerically("<=", 1024))
			Expect(utf8.ValidString(ev.Note)).To(BeTrue())
			out = append(out, ev.Note)
		}
		return out
	}
}

// condition returns "<status> <reason>: <message>" of a PodNetwork
// condition.
func condition(api *framework.API, conditionType string) func() string {
	return func() string {
		if c := api.Condition(conditionType); c != nil {
			return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
		}
		return ""
	}
}

// statusManagers returns the field managers of the PodNetwork status.
func statusManagers(api *framework.API) func() []string {
	return func() []string {
		pn, err := api.PodNetwork()
		if err != nil {
			return []string{err.Error()}
		}
		var out []string
		for _, mf := range pn.ManagedFields {
			if mf.Subresource == "status" {
				out = append(out, mf.Manager)
			}
		}
		slices.Sort(out)
		return out
	}
}

// operatorOnly matches the status managers once the operator has taken back
// what others wrote.
var operatorOnly = ConsistOf("podnetwork-operator/lifecycle", "podnetwork-operator/node-ipam")

// beInvalid matches an error the apiserver's validation returned.
func beInvalid() OmegaMatcher {
	return WithTransform(apierrors.IsInvalid, BeTrue())
}

// resetCluster removes everything a spec created on api's cluster: the
// ServiceCIDRs other than the apiserver's own, then what
// framework.API.ResetCluster removes.
func resetCluster(api *framework.API) {
	GinkgoHelper()
	var svcs networkingv1.ServiceCIDRList
	Expect(api.List(suiteCtx, &svcs)).To(Succeed())
	for i := range svcs.Items {
		if svcs.Items[i].Name != "kubernetes" {
			Expect(client.IgnoreNotFound(api.Delete(suiteCtx, &svcs.Items[i]))).To(Succeed())
		}
	}
	api.ResetCluster()
}

// rangeEvents returns the notes of the events with the given reason about
// range name of the PodNetwork.
func rangeEvents(api *framework.API, reason, name string) func() []string {
	return func() []string {
		var out []string
		for _, ev := range api.Events("PodNetwork") {
			if ev.Reason == reason && ev.Regarding.FieldPath == "status.ranges{"+name+"}" {
				out = append(out, ev.Note)
			}
		}
		return out
	}
}

// history is every PodNetwork and PodNetworkConsumer a spec's cluster went
// through.
type history struct{ *framework.Recorder }

// record records for the rest of the spec.
func record(api *framework.API) history {
	GinkgoHelper()
	rec, err := framework.Record(suiteCtx, api, &v1alpha1.PodNetworkList{}, &v1alpha1.PodNetworkConsumerList{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(rec.Stop)
	return history{rec}
}

// acks returns "<phase>/<result>" of every acknowledgement of a range a
// consumer ever wrote.
func (h history) acks(consumer, rangeName string) []string {
	var out []string
	for _, ev := range h.Events() {
		c, ok := ev.Object.(*v1alpha1.PodNetworkConsumer)
		if !ok || c.Name != consumer {
			continue
		}
		for _, a := range c.Status.Ranges {
			if a.Name == rangeName {
				out = append(out, string(a.Phase)+"/"+string(a.Result))
			}
		}
	}
	return out
}

// expectInvariants checks every node against the ranges recorded Active.
func (h history) expectInvariants(api *framework.API) {
	GinkgoHelper()
	Expect(h.CheckCluster(suiteCtx, api)).To(Succeed())
}

// inPods matches a prefix inside range pods.
func inPods() OmegaMatcher {
	r := netip.MustParsePrefix(podsCIDR)
	return WithTransform(func(s string) bool {
		p := netip.MustParsePrefix(s)
		return r.Bits() <= p.Bits() && r.Contains(p.Addr())
	}, BeTrue())
}

// podsAwaitOnly waits until range pods awaits exactly the given consumers: the
// others have acknowledged and the lifecycle has written that down, so no
// write computed from an older status is on its way. A hand edit made
// before that may be overwritten by such a write (server-side apply with
// force), which a spec about edits must not mistake for a repair.
func podsAwaitOnly(api *framework.API, consumers ...string) {
	GinkgoHelper()
	want := OmegaMatcher(BeEmpty())
	if len(consumers) > 0 {
		want = ConsistOf(consumers)
	}
	Eventually(func() []string { return api.RangeStatus(podsRange).Awaiting }).Should(want)
}

// inSync waits until the lifecycle reports that consumer acknowledged the
// current phase of every range: nothing it acknowledged is still on its
// way into the status.
func inSync(api *framework.API, consumer string) {
	GinkgoHelper()
	Eventually(func() bool {
		pn, err := api.PodNetwork()
		if err != nil {
			return false
		}
		i := slices.IndexFunc(pn.Status.Consumers, func(c v1alpha1.ConsumerSummary) bool { return c.Name == consumer })
		return i >= 0 && pn.Status.Consumers[i].InSync
	}).Should(BeTrue(), "consumer %s in sync", consumer)
}

// consumerMessage is the lifecycle's summary of a consumer.
func consumerMessage(api *framework.API, consumer string) string {
	pn, err := api.PodNetwork()
	if err != nil {
		return err.Error()
	}
	for _, c := range pn.Status.Consumers {
		if c.Name == consumer {
			return c.Message
		}
	}
	return ""
}

func mustJSON(v any) []byte {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// editPods edits the status entry of range pods by hand until the operator
// reports a StatusEdited event about it containing event. A write the
// operator computed from the status before the edit may overwrite it
// (server-side apply with force): then, as far as the status goes, the
// edit never happened, and it is made again. shows tells whether the entry
// still holds the edit.
func editPods(api *framework.API, edit func(*v1alpha1.RangeStatus), shows func(v1alpha1.RangeStatus) bool, event string) {
	GinkgoHelper()
	Eventually(func() []string {
		seen := rangeEvents(api, "StatusEdited", podsRange)()
		if !slices.ContainsFunc(seen, func(n string) bool { return strings.Contains(n, event) }) && !shows(api.RangeStatus(podsRange)) {
			what, err := framework.EditRange(suiteCtx, api, podsRange, edit)
			Expect(err).NotTo(HaveOccurred())
			GinkgoWriter.Println("edited:", what)
		}
		return seen
	}).Should(ContainElement(ContainSubstring(event)))
}
