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

package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/cli/app"
)

// drainNamespace holds the workload the drain schedule looks at.
const drainNamespace = "shop"

// showsDrainSchedule runs once range a is Draining, held by n1 and n2: n1
// is Karpenter's and runs web-0, which a budget allowing no disruption
// guards; n2 is no one's. plan -f with drain assist in Auto mode and the
// handover Delete schedules n1, names the budget, skips n2 with a warning;
// a user who may not read pods or budgets gets the schedule without them;
// status shows what Recommend mode reports.
func showsDrainSchedule() {
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: drainNamespace}})).To(Succeed())
	for _, p := range []struct{ name, node, app string }{{"web-0", "n1", "web"}, {"api-0", "n2", "api"}} {
		Expect(k8sClient.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: drainNamespace, Name: p.name, Labels: map[string]string{"app": p.app}},
			Spec: corev1.PodSpec{NodeName: p.node, TerminationGracePeriodSeconds: ptr.To(int64(0)),
				Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
		})).To(Succeed())
	}
	// No disruption controller runs here: the budget's status stays zero,
	// which allows no disruption.
	Expect(k8sClient.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: drainNamespace, Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	})).To(Succeed())
	setNodeLabel("n1", v1alpha1.KarpenterNodePoolLabel, "default")
	DeferCleanup(func() {
		Expect(k8sClient.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(drainNamespace), client.GracePeriodSeconds(0))).To(Succeed())
		Expect(k8sClient.DeleteAllOf(ctx, &policyv1.PodDisruptionBudget{}, client.InNamespace(drainNamespace))).To(Succeed())
		setNodeLabel("n1", v1alpha1.KarpenterNodePoolLabel, "")
	})

	pn := k8sClient.GetPodNetwork()
	spec := pn.Spec.DeepCopy()
	// Without svc, which overlaps the ServiceCIDR, the plan proceeds.
	spec.Ranges = slices.DeleteFunc(spec.Ranges, func(r v1alpha1.PodCIDRRange) bool { return r.Name == "svc" })
	spec.DrainAssist = v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete}
	manifest := filepath.Join(GinkgoT().TempDir(), "pn.yaml")
	b, err := yaml.Marshal(&v1alpha1.PodNetwork{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "PodNetwork"},
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName}, Spec: *spec})
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(manifest, b, 0o600)).To(Succeed())

	code, out, errOut := run("plan", "-f", manifest, "-o", "json")
	Expect(code).To(Equal(app.ExitOK), errOut)
	var plan cli.PlanReport
	Expect(json.Unmarshal([]byte(out), &plan)).To(Succeed())
	s := plan.DrainSchedule
	Expect(s).NotTo(BeNil())
	Expect(s.Nodes).To(Equal(2))
	Expect(s.Batches).To(HaveLen(1))
	Expect(s.Batches[0].Nodes).To(ConsistOf(And(HaveField("Name", "n1"), HaveField("PodsToEvict", ptr.To(1)),
		HaveField("BlockedBy", ConsistOf(cli.BudgetBlock{PodDisruptionBudget: drainNamespace + "/web", Pods: []string{drainNamespace + "/web-0"}})))))
	Expect(s.Skipped).To(ConsistOf(And(HaveField("Name", "n2"), HaveField("Reason", v1alpha1.DrainReasonNotKarpenterManaged))))
	Expect(s.Warnings).To(ContainElement(HavePrefix("handover Delete: no Karpenter NodeClaim owns n2 ")))
	Expect(s.Unreadable).To(BeEmpty())
	code, text, errOut := run("plan", "-f", manifest)
	Expect(code).To(Equal(app.ExitOK), errOut)
	golden("plan-drain.text", text)
	Expect(k8sClient.GetPodNetwork().Spec.DrainAssist.IsSet()).To(BeFalse(), "plan wrote the PodNetwork")

	// A user who may plan but not read pods or budgets: the same schedule,
	// without what depends on them, and the plan still proceeds.
	grant("drainplanner", []rbacv1.PolicyRule{
		{APIGroups: []string{"podnetwork.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"podnetwork.io"}, Resources: []string{"podnetworks"}, Verbs: []string{"update", "create"}},
		{APIGroups: []string{"", "apps", "networking.k8s.io"}, Resources: []string{"nodes", "configmaps", "daemonsets", "servicecidrs"}, Verbs: []string{"get", "list"}},
	})
	code, out, errOut = run("plan", "--as", "drainplanner", "-f", manifest, "-o", "json")
	Expect(code).To(Equal(app.ExitOK), errOut)
	plan = cli.PlanReport{}
	Expect(json.Unmarshal([]byte(out), &plan)).To(Succeed())
	s = plan.DrainSchedule
	Expect(s).NotTo(BeNil())
	Expect(s.Unreadable).To(ConsistOf(HaveField("Resource", "pods"), HaveField("Resource", cli.ResourcePDBs)))
	Expect(s.Batches).To(HaveLen(1))
	Expect(s.Batches[0].Nodes[0].PodsToEvict).To(BeNil())
	Expect(s.Warnings).To(ContainElement(HavePrefix("the pods of these nodes could not be read")))

	// Recommend mode, for real: status shows what drain assist reports.
	setDrainAssist(v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistRecommend, Handover: v1alpha1.HandoverDelete})
	DeferCleanup(setDrainAssist, v1alpha1.DrainAssist{})
	Eventually(func(g Gomega) {
		code, out, errOut := run("status", "-o", "json")
		g.Expect(code).To(Equal(app.ExitOK), errOut)
		var st cli.StatusReport
		g.Expect(json.Unmarshal([]byte(out), &st)).To(Succeed())
		g.Expect(st.DrainAssist).NotTo(BeNil())
		g.Expect(st.DrainAssist.Total).To(Equal(int32(2)))
		g.Expect(st.DrainAssist.Nodes).To(ContainElements(
			And(HaveField("Name", "n1"), HaveField("State", v1alpha1.DrainNodeRecommended)),
			And(HaveField("Name", "n2"), HaveField("State", v1alpha1.DrainNodeSkipped))))
	}).Should(Succeed())
	code, text, errOut = run("status")
	Expect(code).To(Equal(app.ExitOK), errOut)
	Expect(text).To(MatchRegexp(`\nDRAIN ASSIST \(Recommend, handover Delete, at most 1 at a time\): 2 left to replace: .*\n(.*\n)*n1\s+Recommended\s`))
}

// setNodeLabel sets (or, with value "", removes) a label of a node.
func setNodeLabel(name, key, value string) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n := &corev1.Node{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			return err
		}
		if value == "" {
			delete(n.Labels, key)
		} else {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels[key] = value
		}
		return k8sClient.Update(ctx, n)
	})).To(Succeed())
}

// setDrainAssist sets spec.drainAssist.
func setDrainAssist(da v1alpha1.DrainAssist) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn, err := k8sClient.PodNetwork()
		if err != nil {
			return err
		}
		pn.Spec.DrainAssist = da
		return k8sClient.Update(ctx, pn)
	})).To(Succeed())
}
