//go:build e2e

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

package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/chart"
	"podnetwork.io/operator/test/framework/story"
)

var _ = Describe("The admin's story", Ordered, func() {
	var history *framework.Recorder

	BeforeAll(func() {
		var err error
		history, err = framework.Record(ctx, admin, &v1alpha1.PodNetworkList{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(history.Stop)
		By("starting the plugin as its own ServiceAccount, bound only to the chart's plugin role (the documented one)")
		plugin, err := env.NewPlugin(controlPlane.Cluster.ImpersonateServiceAccount(pluginNamespace, pluginName), 2*time.Second)
		Expect(err).NotTo(HaveOccurred())
		framework.StartManager(ctx, "the plugin", plugin)
	})

	AfterEach(func() {
		Expect(history.CheckCluster(ctx, admin)).To(Succeed(), "no overlapping podCIDRs, none outside a range that was Active")
	})

	// The story's acts, as the demo tells them (test/framework/story).
	for _, act := range story.Acts(env) {
		It(act.Title, func() {
			for _, step := range act.Steps {
				runStep(step)
			}
		})
	}

	It("lets the plugin write its own consumer status and nothing else", func() {
		plugin, err := client.New(controlPlane.Cluster.ImpersonateServiceAccount(pluginNamespace, pluginName), client.Options{Scheme: controllers.Scheme()})
		Expect(err).NotTo(HaveOccurred())

		own := &v1alpha1.PodNetworkConsumer{}
		Expect(plugin.Get(ctx, client.ObjectKey{Name: pluginName}, own)).To(Succeed())
		own.Status.Conditions = append(own.Status.Conditions[:0:0], own.Status.Conditions...)
		Expect(plugin.Status().Update(ctx, own)).To(Succeed(), "its own status")

		other := &v1alpha1.PodNetworkConsumer{}
		Expect(apierrors.IsForbidden(plugin.Get(ctx, client.ObjectKey{Name: "node-ipam"}, other))).To(BeTrue(), "reading another consumer")
		Expect(admin.Get(ctx, client.ObjectKey{Name: "node-ipam"}, other)).To(Succeed())
		other.Status.Ranges = nil
		Expect(apierrors.IsForbidden(plugin.Status().Update(ctx, other))).To(BeTrue(), "another consumer's status")
		Expect(apierrors.IsForbidden(plugin.List(ctx, &v1alpha1.PodNetworkConsumerList{}))).To(BeTrue(), "listing every consumer")
		Expect(plugin.List(ctx, &v1alpha1.PodNetworkConsumerList{}, client.MatchingFields{"metadata.name": pluginName})).To(Succeed(), "listing its own consumer by field selector")
		Expect(apierrors.IsForbidden(plugin.Create(ctx, &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: pluginName + "-2"}}))).To(BeTrue(), "creating a consumer")

		pn := &v1alpha1.PodNetwork{}
		Expect(plugin.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn)).To(Succeed())
		pn.Spec.Ranges = nil
		Expect(apierrors.IsForbidden(plugin.Update(ctx, pn))).To(BeTrue(), "the PodNetwork spec")
		Expect(apierrors.IsForbidden(plugin.Status().Update(ctx, pn))).To(BeTrue(), "the PodNetwork status")
	})

	It("exports every metric the chart's alerts and dashboard use", func() {
		objs, err := chart.Render(root, "-f", chart.MonitoringValues(root))
		Expect(err).NotTo(HaveOccurred())
		exprs, err := chart.Expressions(objs)
		Expect(err).NotTo(HaveOccurred())
		var lead *operatorProcess
		Eventually(func() *operatorProcess { lead = leader(); return lead }).ShouldNot(BeNil())
		body, err := lead.scrape()
		Expect(err).NotTo(HaveOccurred())
		for _, name := range chart.MetricNames(exprs) {
			Expect(body).To(MatchRegexp(`(?m)^`+name+`(_bucket)?[{ ]`), "the leader's /metrics after the story has %s", name)
		}
	})

	It("fails over: only the leader writes, and the other replica takes over after a SIGKILL", func() {
		var lead, other *operatorProcess
		Eventually(func() error {
			lead, other = leader(), follower()
			if lead == nil || other == nil {
				return errors.New("no leader and follower yet")
			}
			return nil
		}).Should(Succeed())
		Expect(other.writes()).To(Equal(0), "the follower never wrote to the apiserver")

		held := admin.NodesWithPodCIDRs()
		Expect(held).To(Equal(len(admin.Nodes())), "the story left every node with podCIDRs")

		By("killing the leader")
		Expect(lead.proc.Kill()).To(Succeed())
		killedAt := time.Now()
		Expect(env.AddNodes("after-failover", 0, 3)).To(Succeed())
		Eventually(other.isLeader, 30*time.Second).Should(BeTrue())
		Expect(time.Since(killedAt)).To(BeNumerically("<", 30*time.Second), "within the lease duration (15s) plus a retry")
		Eventually(admin.NodesWithPodCIDRs).Should(Equal(held + 3))
	})

	It("upgrades with changed values and uninstalls without touching the pod network", func() {
		held := admin.NodesWithPodCIDRs()
		values := filepath.Join(controlPlane.Cluster.WorkDir, "upgrade-values.yaml")
		Expect(os.WriteFile(values, []byte(`plugins:
  - name: `+pluginName+`
    serviceAccount: {name: `+pluginName+`, namespace: `+pluginNamespace+`}
  - name: second-plugin
    required: false
    serviceAccount: {name: second-plugin, namespace: `+pluginNamespace+`}
`), 0o600)).To(Succeed())
		helm("upgrade", releaseName, filepath.Join(root, "charts", "podnetwork-operator"), "--namespace", releaseNamespace,
			"--reuse-values", "-f", values)
		second := &v1alpha1.PodNetworkConsumer{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: "second-plugin"}, second)).To(Succeed())
		Expect(second.Spec.Required).To(Equal(ptr.To(false)))
		Eventually(func() []string {
			var names []string
			for _, c := range admin.GetPodNetwork().Status.Consumers {
				names = append(names, c.Name)
			}
			return names
		}).Should(ContainElement("second-plugin"))
		// Ready may be False for a while: the autoscaler of the story may be
		// moving a range after the fail-over's nodes. Never for the plugin.
		Eventually(func(g Gomega) {
			ready := meta.FindStatusCondition(admin.GetPodNetwork().Status.Conditions, v1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Message).NotTo(ContainSubstring("second-plugin"), "a consumer that is not required never holds anything up")
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		}).Should(Succeed())

		helm("uninstall", releaseName, "--namespace", releaseNamespace)
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: "second-plugin"}, &v1alpha1.PodNetworkConsumer{}))
		}).Should(BeTrue(), "the chart's consumers go with the release")
		Expect(admin.GetPodNetwork().Spec.Ranges).To(HaveLen(1), "the PodNetwork stays")
		Expect(admin.NodesWithPodCIDRs()).To(Equal(held), "every node keeps its podCIDR")
	})
})

// runStep acts and asserts every check of a story step.
func runStep(step story.Step) {
	GinkgoHelper()
	By(step.Title)
	if step.Do != nil {
		Expect(step.Do(env)).To(Succeed())
	}
	for _, c := range step.Checks {
		holds := func() error { return c.Holds(env) }
		switch c.Mode {
		case story.Now:
			Expect(holds()).To(Succeed(), c.What)
		case story.Throughout:
			Consistently(holds, c.For).Should(Succeed(), c.What)
		default:
			Eventually(holds).Should(Succeed(), c.What)
		}
	}
}
