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

package crd_test

// These tests run the generated CRDs through the apiextensions-apiserver code
// that a real kube-apiserver runs: CRD validation (which compiles every CEL
// rule and enforces the static cost limits) and the CEL validator applied to
// custom resources on create and update. They do not need a running
// apiserver.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

const crdDir = "../../../config/crd/bases"

// crdFiles are every CRD of the repository.
var crdFiles = []string{"podnetwork.io_podnetworks.yaml", "podnetwork.io_podnetworkconsumers.yaml", "podnetwork.io_autoscaledrangesets.yaml"}

func loadCRD(t *testing.T, file string) *apiextensions.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(crdDir, file))
	if err != nil {
		t.Fatalf("reading CRD: %v", err)
	}
	v1 := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, v1); err != nil {
		t.Fatalf("decoding CRD: %v", err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, internal, nil); err != nil {
		t.Fatalf("converting CRD: %v", err)
	}
	return internal
}

func structuralSchema(t *testing.T, crd *apiextensions.CustomResourceDefinition) *schema.Structural {
	t.Helper()
	validation := crd.Spec.Validation // the internal version hoists identical per-version schemas
	if crd.Spec.Versions[0].Schema != nil {
		validation = crd.Spec.Versions[0].Schema
	}
	s, err := schema.NewStructural(validation.OpenAPIV3Schema)
	if err != nil {
		t.Fatalf("structural schema: %v", err)
	}
	return s
}

func TestCRDsPassAPIServerValidation(t *testing.T) {
	for _, file := range crdFiles {
		t.Run(file, func(t *testing.T) {
			g := NewWithT(t)
			crd := loadCRD(t, file)
			g.Expect(validation.ValidateCustomResourceDefinition(context.Background(), crd)).To(BeEmpty())
		})
	}
}

// TestCELCostEstimates logs the static cost of every rule and checks it stays
// well under the per-expression limit, multiplied by how often it can run.
func TestCELCostEstimates(t *testing.T) {
	for _, file := range crdFiles {
		crd := loadCRD(t, file)
		s := structuralSchema(t, crd)
		var total uint64
		walkSchema(s, "", true, func(path string, node *schema.Structural, root bool) {
			if len(node.XValidations) == 0 {
				return
			}
			declType := model.SchemaDeclType(node, root)
			declType = declType.MaybeAssignTypeName("selfType" + strings.ReplaceAll(path, ".", "_"))
			results, err := cel.Compile(node, declType, celconfig.PerCallLimit,
				environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader())
			if err != nil {
				t.Fatalf("%s: compile: %v", path, err)
			}
			for i, r := range results {
				if r.Error != nil {
					t.Fatalf("%s rule %d: %v", path, i, r.Error)
				}
				t.Logf("%s %s rule %d: maxCost=%d", file, path, i, r.MaxCost)
				if r.MaxCost > validation.StaticEstimatedCostLimit/4 {
					t.Errorf("%s rule %d: cost %d is more than a quarter of the per-expression limit %d", path, i, r.MaxCost, validation.StaticEstimatedCostLimit)
				}
				total += r.MaxCost
			}
		})
		t.Logf("%s: sum of rule costs %d (CRD limit %d)", file, total, validation.StaticEstimatedCRDCostLimit)
	}
}

func walkSchema(s *schema.Structural, path string, root bool, fn func(string, *schema.Structural, bool)) {
	fn(path, s, root)
	for name, p := range s.Properties {
		walkSchema(&p, path+"."+name, false, fn)
	}
	if s.Items != nil {
		walkSchema(s.Items, path+"[*]", false, fn)
	}
}

func validate(t *testing.T, crd *apiextensions.CustomResourceDefinition, obj, old map[string]any) field.ErrorList {
	t.Helper()
	errs, _ := validateWithCost(t, crd, obj, old)
	return errs
}

// validateWithCost runs the CEL rules like the apiserver does and returns the
// errors and the runtime cost spent.
func validateWithCost(t *testing.T, crd *apiextensions.CustomResourceDefinition, obj, old map[string]any) (field.ErrorList, int64) {
	t.Helper()
	s := structuralSchema(t, crd)
	v := cel.NewValidator(s, true, celconfig.PerCallLimit)
	var oldObj any
	if old != nil {
		oldObj = old
	}
	errs, remaining := v.Validate(context.Background(), field.NewPath(""), s, obj, oldObj, celconfig.RuntimeCELCostBudget)
	return errs, celconfig.RuntimeCELCostBudget - remaining
}

func podNetwork(ranges ...map[string]any) map[string]any {
	rs := make([]any, 0, len(ranges))
	for _, r := range ranges {
		rs = append(rs, r)
	}
	return map[string]any{
		"apiVersion": "podnetwork.io/v1alpha1",
		"kind":       "PodNetwork",
		"metadata":   map[string]any{"name": "default"},
		"spec":       map[string]any{"ranges": rs},
	}
}

// withAllocation sets spec.allocation of a PodNetwork built by podNetwork.
func withAllocation(pn, allocation map[string]any) map[string]any {
	pn["spec"].(map[string]any)["allocation"] = allocation
	return pn
}

func rng(name, cidr string, nodeMaskSize ...int64) map[string]any {
	r := map[string]any{"name": name, "cidr": cidr}
	if len(nodeMaskSize) > 0 {
		r["nodeMaskSize"] = nodeMaskSize[0]
	}
	return r
}

func errString(errs field.ErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s; ", e.Error())
	}
	return b.String()
}

func TestPodNetworkCIDRRules(t *testing.T) {
	crd := loadCRD(t, "podnetwork.io_podnetworks.yaml")
	tests := []struct {
		cidr         string
		nodeMaskSize int64  // 0 leaves it unset
		wantErr      string // substring of the error; "" means valid
	}{
		{cidr: "10.244.0.0/16"},
		{cidr: "100.64.0.0/10"},
		{cidr: "192.168.0.0/24"},
		{cidr: "fd00:10:244::/48"},
		{cidr: "2001:db8::/32", wantErr: "at most 24 bits longer"},
		{cidr: "not-a-cidr", wantErr: "must be an IPv4 or IPv6 prefix"},
		{cidr: "10.244.0.0", wantErr: "must be an IPv4 or IPv6 prefix"},
		{cidr: "10.244.0.0/33", wantErr: "must be an IPv4 or IPv6 prefix"},
		{cidr: "::ffff:10.0.0.0/104", nodeMaskSize: 120, wantErr: "must be an IPv4 or IPv6 prefix"},
		{cidr: "10.244.1.0/16", wantErr: "canonical form"},
		{cidr: "FD00::/48", wantErr: "canonical form"},
		{cidr: "fd00:0::/48", wantErr: "canonical form"},
		{cidr: "0.0.0.0/0", nodeMaskSize: 24, wantErr: "unspecified address or 0.0.0.0/8"},
		{cidr: "0.1.0.0/16", wantErr: "unspecified address or 0.0.0.0/8"},
		{cidr: "::/64", wantErr: "unspecified address"},
		{cidr: "127.0.0.0/16", wantErr: "loopback"},
		{cidr: "120.0.0.0/5", nodeMaskSize: 24, wantErr: "loopback"},
		{cidr: "::1/128", nodeMaskSize: 126, wantErr: "loopback"},
		{cidr: "169.254.0.0/20", wantErr: "link-local"},
		{cidr: "168.0.0.0/6", nodeMaskSize: 24, wantErr: "link-local"},
		{cidr: "fe80::/64", wantErr: "link-local"},
		{cidr: "fe00::/7", nodeMaskSize: 24, wantErr: "link-local"},
		{cidr: "224.0.0.0/24", wantErr: "multicast"},
		{cidr: "192.0.0.0/2", nodeMaskSize: 24, wantErr: "multicast"},
		{cidr: "ff02::/64", wantErr: "multicast"},
		{cidr: "240.0.0.0/8", wantErr: "reserved range 240.0.0.0/4"},
		{cidr: "255.255.255.0/24", wantErr: "reserved range 240.0.0.0/4"},
		{cidr: "::ff00:0:0/88", nodeMaskSize: 112, wantErr: "IPv4-mapped"},
		{cidr: "::fffe:0:0/95", nodeMaskSize: 112, wantErr: "IPv4-mapped"},
		{cidr: "::fffe:0:0/96", nodeMaskSize: 112},
		{cidr: "::1:0:0:0/80", nodeMaskSize: 96},
	}
	for _, tc := range tests {
		t.Run(tc.cidr, func(t *testing.T) {
			g := NewWithT(t)
			r := rng("a", tc.cidr)
			if tc.nodeMaskSize != 0 {
				r["nodeMaskSize"] = tc.nodeMaskSize
			}
			errs := validate(t, crd, podNetwork(r), nil)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty(), errString(errs))
				return
			}
			g.Expect(errString(errs)).To(ContainSubstring(tc.wantErr))
		})
	}
}

func TestPodNetworkRules(t *testing.T) {
	crd := loadCRD(t, "podnetwork.io_podnetworks.yaml")
	tests := []struct {
		name    string
		obj     map[string]any
		old     map[string]any
		wantErr string
	}{
		{name: "empty spec", obj: podNetwork()},
		{
			name:    "name must be default",
			obj:     func() map[string]any { o := podNetwork(); o["metadata"] = map[string]any{"name": "other"}; return o }(),
			wantErr: `PodNetwork is a singleton: its name must be "default"`,
		},
		{name: "dual stack", obj: podNetwork(rng("v4", "10.244.0.0/16"), rng("v6", "fd00:10:244::/48"))},
		{name: "default nodeMaskSize too short for /25", obj: podNetwork(rng("a", "10.0.0.0/25")), wantErr: "at least the prefix length"},
		{name: "explicit nodeMaskSize for /25", obj: podNetwork(rng("a", "10.0.0.0/25", 28))},
		{name: "nodeMaskSize shorter than prefix", obj: podNetwork(rng("a", "10.0.0.0/16", 12)), wantErr: "at least the prefix length"},
		{name: "IPv4 nodeMaskSize above 30", obj: podNetwork(rng("a", "10.0.0.0/16", 31)), wantErr: "at most 30 for an IPv4"},
		{name: "IPv6 nodeMaskSize above 126", obj: podNetwork(rng("a", "fd00::/112", 127)), wantErr: "at most 30 for an IPv4 range and at most 126"},
		{name: "nodeMaskSize more than 24 bits", obj: podNetwork(rng("a", "64.0.0.0/3", 28)), wantErr: "at most 24 bits longer"},
		{name: "IPv6 /32 needs explicit nodeMaskSize", obj: podNetwork(rng("a", "2001:db8::/32", 56))},
		{name: "strict subnet with the same nodeMaskSize", obj: podNetwork(rng("a", "10.0.0.0/16"), rng("b", "10.0.128.0/17"))},
		{name: "same cidr twice", obj: podNetwork(rng("a", "10.0.0.0/16"), rng("b", "10.0.0.0/16")), wantErr: "ranges must not overlap"},
		{name: "partial overlap impossible for prefixes, containment with other nodeMaskSize", obj: podNetwork(rng("a", "10.0.0.0/8"), rng("b", "10.1.0.0/16", 26)), wantErr: "ranges must not overlap"},
		{name: "expansion with same nodeMaskSize", obj: podNetwork(rng("a", "10.0.0.0/8"), rng("b", "10.1.0.0/16"), rng("c", "10.2.0.0/16", 24))},
		{name: "disjoint", obj: podNetwork(rng("a", "10.0.0.0/16"), rng("b", "10.1.0.0/16", 26))},
		{name: "families never overlap", obj: podNetwork(rng("a", "10.0.0.0/8"), rng("b", "fd00::/48"))},
		{name: "familyPolicy AllOrWait", obj: withAllocation(podNetwork(), map[string]any{"familyPolicy": "AllOrWait"})},
		{
			name:    "cidr immutable",
			old:     podNetwork(rng("a", "10.0.0.0/16")),
			obj:     podNetwork(rng("a", "10.1.0.0/16")),
			wantErr: "cidr is immutable",
		},
		{
			name:    "nodeMaskSize immutable",
			old:     podNetwork(rng("a", "10.0.0.0/16", 24)),
			obj:     podNetwork(rng("a", "10.0.0.0/16", 25)),
			wantErr: "nodeMaskSize is immutable",
		},
		{
			name:    "nodeMaskSize cannot be set to a non-default",
			old:     podNetwork(rng("a", "10.0.0.0/16")),
			obj:     podNetwork(rng("a", "10.0.0.0/16", 26)),
			wantErr: "nodeMaskSize is immutable",
		},
		{
			name: "nodeMaskSize may be set to its default",
			old:  podNetwork(rng("a", "10.0.0.0/16")),
			obj:  podNetwork(rng("a", "10.0.0.0/16", 24)),
		},
		{
			name: "nodeMaskSize may be unset when it is the default",
			old:  podNetwork(rng("a", "fd00::/48", 64)),
			obj:  podNetwork(rng("a", "fd00::/48")),
		},
		{
			name: "removing and adding ranges",
			old:  podNetwork(rng("a", "10.0.0.0/16"), rng("b", "10.1.0.0/16")),
			obj:  podNetwork(rng("b", "10.1.0.0/16"), rng("c", "10.0.0.0/16")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			errs := validate(t, crd, tc.obj, tc.old)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty(), errString(errs))
				return
			}
			g.Expect(errString(errs)).To(ContainSubstring(tc.wantErr))
		})
	}
}

// TestPodNetworkOverlapRuleAtMaxItems runs the rules on the most expensive
// spec: 64 ranges with the longest names and IPv6 CIDRs, on create and on
// update (where the transition rules run too). The runtime cost must stay
// under the per-call limit and the per-request budget.
func TestPodNetworkOverlapRuleAtMaxItems(t *testing.T) {
	g := NewWithT(t)
	crd := loadCRD(t, "podnetwork.io_podnetworks.yaml")
	var ranges []map[string]any
	for i := range 64 {
		name := fmt.Sprintf("%02d%s", i, strings.Repeat("x", 61))
		// 43 characters, the longest canonical IPv6 prefix.
		cidr := fmt.Sprintf("fd00:1234:5678:9abc:def0:1234:56%02x:9a00/120", i)
		ranges = append(ranges, rng(name, cidr, 124))
	}
	g.Expect(len(ranges[0]["cidr"].(string))).To(Equal(43))
	errs, cost := validateWithCost(t, crd, podNetwork(ranges...), nil)
	g.Expect(errs).To(BeEmpty(), errString(errs))
	t.Logf("create: runtime cost %d (per-call limit %d, budget %d)", cost, celconfig.PerCallLimit, celconfig.RuntimeCELCostBudget)
	g.Expect(cost).To(BeNumerically("<", celconfig.PerCallLimit/2))

	errs, cost = validateWithCost(t, crd, podNetwork(ranges...), podNetwork(ranges...))
	g.Expect(errs).To(BeEmpty(), errString(errs))
	t.Logf("update: runtime cost %d", cost)
	g.Expect(cost).To(BeNumerically("<", celconfig.PerCallLimit/2))

	ranges[63] = rng("last", "fd00:1234:5678:9abc:def0:1234:5600:9a00/120", 124)
	g.Expect(errString(validate(t, crd, podNetwork(ranges...), nil))).To(ContainSubstring("ranges must not overlap"))
}

func TestPodNetworkConsumerRules(t *testing.T) {
	crd := loadCRD(t, "podnetwork.io_podnetworkconsumers.yaml")
	consumer := func(name string) map[string]any {
		return map[string]any{
			"apiVersion": "podnetwork.io/v1alpha1",
			"kind":       "PodNetworkConsumer",
			"metadata":   map[string]any{"name": name},
			"spec":       map[string]any{},
		}
	}
	g := NewWithT(t)
	g.Expect(validate(t, crd, consumer("kube-proxy"), nil)).To(BeEmpty())
	g.Expect(errString(validate(t, crd, consumer("kube.proxy"), nil))).To(ContainSubstring("must be a DNS label"))
	g.Expect(errString(validate(t, crd, consumer(strings.Repeat("a", 64)), nil))).To(ContainSubstring("must be a DNS label"))
}

func TestDefaults(t *testing.T) {
	g := NewWithT(t)

	pn := map[string]any{"apiVersion": "podnetwork.io/v1alpha1", "kind": "PodNetwork", "metadata": map[string]any{"name": "default"}}
	defaulting.Default(pn, structuralSchema(t, loadCRD(t, "podnetwork.io_podnetworks.yaml")))
	g.Expect(pn["spec"]).To(Equal(map[string]any{
		"allocation": map[string]any{"recycleDelaySeconds": int64(60), "whenExhausted": "Wait"},
	}))

	c := map[string]any{"apiVersion": "podnetwork.io/v1alpha1", "kind": "PodNetworkConsumer", "metadata": map[string]any{"name": "flannel"}}
	defaulting.Default(c, structuralSchema(t, loadCRD(t, "podnetwork.io_podnetworkconsumers.yaml")))
	g.Expect(c["spec"]).To(Equal(map[string]any{"required": true}))
}
