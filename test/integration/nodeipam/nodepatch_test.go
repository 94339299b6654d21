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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/controllers/nodeipam/nodepatch"
	"podnetwork.io/operator/test/framework"
)

// The node patch writer replaces client-go's request path for NodeIPAM's
// writes; these specs hold it to client-go's contract against the real API
// server: the patch lands and client-go's request counter counts it, and
// every failure is the API error client-go would have returned, which
// NodeIPAM's outcome rules (stored, certainly not stored, unknown) read.
// The field manager is not asserted: this control plane's nodes came back
// without managedFields.
var _ = Describe("The node patch writer", func() {
	const manager = "nodepatch-test"
	var writer *nodepatch.Writer

	BeforeEach(func() {
		DeferCleanup(resetCluster)
		cfg := suite.ControlPlane.Config
		hc, err := rest.HTTPClientFor(cfg)
		Expect(err).NotTo(HaveOccurred())
		writer, err = nodepatch.New(cfg, hc, controllers.Scheme(), manager)
		Expect(err).NotTo(HaveOccurred())
	})

	patch := func(rv, cidr string) []byte {
		return fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q},"spec":{"podCIDR":%q,"podCIDRs":[%q]}}`, rv, cidr, cidr)
	}
	create := func(name string) *corev1.Node {
		node := framework.Node(name).Obj()
		Expect(k8sClient.Create(suiteCtx, node)).To(Succeed())
		return node
	}

	It("stores a patch and counts it in client-go's metrics", func() {
		node := create("np-stored")
		before := patchesAnswered("200")

		Expect(writer.MergePatch(suiteCtx, node.Name, patch(node.ResourceVersion, "198.18.1.0/24"))).To(Succeed())

		var got corev1.Node
		Expect(k8sClient.Get(suiteCtx, client.ObjectKeyFromObject(node), &got)).To(Succeed())
		Expect(got.Spec.PodCIDRs).To(Equal([]string{"198.18.1.0/24"}))
		Expect(patchesAnswered("200")).To(Equal(before + 1))
	})

	It("returns the API server's conflict for a stale resourceVersion, and stores nothing", func() {
		node := create("np-stale")
		stale := node.ResourceVersion
		node.Labels = map[string]string{"changed": "yes"}
		Expect(k8sClient.Update(suiteCtx, node)).To(Succeed())

		err := writer.MergePatch(suiteCtx, node.Name, patch(stale, "198.18.2.0/24"))
		Expect(apierrors.IsConflict(err)).To(BeTrue(), "got %v", err)
		var got corev1.Node
		Expect(k8sClient.Get(suiteCtx, client.ObjectKeyFromObject(node), &got)).To(Succeed())
		Expect(got.Spec.PodCIDRs).To(BeEmpty())
	})

	It("returns NotFound for a node that does not exist", func() {
		err := writer.MergePatch(suiteCtx, "np-missing", patch("1", "198.18.3.0/24"))
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "got %v", err)
	})

	It("returns Invalid, with the API server's message, for a podCIDR the API server rejects", func() {
		node := create("np-invalid")
		err := writer.MergePatch(suiteCtx, node.Name, patch(node.ResourceVersion, "not-a-cidr"))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("podCIDR"))
	})

	It("returns a transport's refusal (the lease fence) as it is, not as an API answer", func() {
		node := create("np-fenced")
		refused := errors.New("fence closed")
		hc := &http.Client{Transport: roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			return nil, refused
		})}
		fenced, err := nodepatch.New(suite.ControlPlane.Config, hc, controllers.Scheme(), manager)
		Expect(err).NotTo(HaveOccurred())

		err = fenced.MergePatch(suiteCtx, node.Name, patch(node.ResourceVersion, "198.18.4.0/24"))
		Expect(err).To(MatchError(refused))
		var status apierrors.APIStatus
		Expect(errors.As(err, &status)).To(BeFalse(), "an unsent request is no API answer")
	})
})

// patchesAnswered is client-go's rest_client_requests_total for PATCHes
// answered with code, as the operator's /metrics serves it.
func patchesAnswered(code string) float64 {
	GinkgoHelper()
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	var total float64
	for _, f := range families {
		if f.GetName() != "rest_client_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if label(m, "method") == "PATCH" && label(m, "code") == code {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
