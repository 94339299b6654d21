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

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// validateAll runs the OpenAPI schema (types, enums, bounds, lengths) and
// then the CEL rules, like the apiserver on create or update.
func validateAll(t *testing.T, crd *apiextensions.CustomResourceDefinition, obj, old map[string]any) field.ErrorList {
	t.Helper()
	schema := crd.Spec.Validation
	if crd.Spec.Versions[0].Schema != nil {
		schema = crd.Spec.Versions[0].Schema
	}
	v, _, err := apiservervalidation.NewSchemaValidator(schema.OpenAPIV3Schema)
	if err != nil {
		t.Fatalf("schema validator: %v", err)
	}
	var errs field.ErrorList
	if old == nil {
		errs = apiservervalidation.ValidateCustomResource(nil, obj, v)
	} else {
		errs = apiservervalidation.ValidateCustomResourceUpdate(nil, obj, old, v)
	}
	return append(errs, validate(t, crd, obj, old)...)
}

// pool returns a valid IPv4 pool, changed by the edits.
func pool(name, cidr string, edits ...func(map[string]any)) map[string]any {
	p := map[string]any{
		"name":              name,
		"cidr":              cidr,
		"rangePrefixLength": int64(20),
		"nodeMaskSize":      int64(24),
		"grow":              map[string]any{"freePercentBelow": int64(20)},
	}
	for _, e := range edits {
		e(p)
	}
	return p
}

func set(key string, value any) func(map[string]any) {
	return func(m map[string]any) { m[key] = value }
}

// autoscaled returns PodNetwork default with spec.autoscaling holding pools.
func autoscaled(mode string, pools ...map[string]any) map[string]any {
	ps := make([]any, 0, len(pools))
	for _, p := range pools {
		ps = append(ps, p)
	}
	o := podNetwork()
	o["spec"].(map[string]any)["autoscaling"] = map[string]any{"mode": mode, "pools": ps}
	return o
}

func TestAutoscalingRules(t *testing.T) {
	crd := loadCRD(t, "podnetwork.io_podnetworks.yaml")
	tests := []struct {
		name    string
		obj     map[string]any
		wantErr string
	}{
		{name: "valid", obj: autoscaled("Auto", pool("a", "10.64.0.0/12"))},
		{name: "valid IPv6", obj: autoscaled("Recommend", pool("v6", "fd00:10::/48", set("rangePrefixLength", int64(56)), set("nodeMaskSize", int64(64))))},
		{name: "off without pools", obj: autoscaled("Off")},
		{name: "unknown mode", obj: autoscaled("Sometimes"), wantErr: "Unsupported value"},
		{name: "pools overlap", obj: autoscaled("Auto", pool("a", "10.64.0.0/12"), pool("b", "10.72.0.0/13")), wantErr: "pools must not overlap"},
		{name: "disjoint pools", obj: autoscaled("Auto", pool("a", "10.64.0.0/12"), pool("b", "10.80.0.0/12"))},
		{name: "pool in loopback", obj: autoscaled("Auto", pool("a", "127.0.0.0/12")), wantErr: "loopback"},
		{name: "pool over multicast", obj: autoscaled("Auto", pool("a", "192.0.0.0/2", set("rangePrefixLength", int64(8)), set("nodeMaskSize", int64(24)))), wantErr: "multicast"},
		{name: "pool not canonical", obj: autoscaled("Auto", pool("a", "10.64.1.0/12")), wantErr: "canonical form"},
		{name: "pool not a cidr", obj: autoscaled("Auto", pool("a", "10.64.0.0")), wantErr: "must be an IPv4 or IPv6 prefix"},
		{name: "pool name too long", obj: autoscaled("Auto", pool(strings.Repeat("a", 41), "10.64.0.0/12")), wantErr: "Too long"},
		{name: "range prefix shorter than pool", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("rangePrefixLength", int64(11)))), wantErr: "rangePrefixLength must be at least"},
		{name: "IPv4 range prefix above 32", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("rangePrefixLength", int64(33)), set("nodeMaskSize", int64(33)))), wantErr: "rangePrefixLength must be at most 32"},
		{name: "nodeMaskSize below range prefix", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("nodeMaskSize", int64(19)))), wantErr: "nodeMaskSize must be at least rangePrefixLength"},
		{name: "nodeMaskSize more than 24 bits", obj: autoscaled("Auto", pool("a", "8.0.0.0/5", set("rangePrefixLength", int64(5)), set("nodeMaskSize", int64(30)))), wantErr: "at most 24 bits longer"},
		{name: "IPv4 nodeMaskSize above 30", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("nodeMaskSize", int64(31)))), wantErr: "at most 30 for an IPv4 pool"},
		{name: "maxRanges 0", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("maxRanges", int64(0)))), wantErr: "should be greater than or equal to 1"},
		{name: "maxRanges 33", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("maxRanges", int64(33)))), wantErr: "should be less than or equal to 32"},
		{name: "exclusion inside", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("exclusions", []any{"10.64.0.0/16", "10.79.255.0/24"})))},
		{name: "exclusion outside", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("exclusions", []any{"10.80.0.0/16"}))), wantErr: "every exclusion must lie inside"},
		{name: "exclusion of the other family", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("exclusions", []any{"fd00::/64"}))), wantErr: "every exclusion must lie inside"},
		{name: "exclusion not canonical", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("exclusions", []any{"10.64.0.1/16"}))), wantErr: "canonical form"},
		{name: "exclusion not a cidr", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("exclusions", []any{"10.64.0.1"}))), wantErr: "must be an IPv4 or IPv6 prefix"},
		{name: "growBy unknown", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("growBy", "Sideways"))), wantErr: "Unsupported value"},
		{name: "grow empty", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("grow", map[string]any{}))), wantErr: "grow needs freeBlocksBelow, freePercentBelow or both"},
		{name: "grow percent 100", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("grow", map[string]any{"freePercentBelow": int64(100)}))), wantErr: "should be less than or equal to 99"},
		{name: "grow blocks", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("grow", map[string]any{"freeBlocksBelow": int64(64)})))},
		{name: "grow blocks too many", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("grow", map[string]any{"freeBlocksBelow": int64(16777217)}))), wantErr: "should be less than or equal to 16777216"},
		{
			name: "shrink with hysteresis",
			obj: autoscaled("Auto", pool("a", "10.64.0.0/12",
				set("grow", map[string]any{"freePercentBelow": int64(20), "freeBlocksBelow": int64(10)}),
				set("shrink", map[string]any{"freePercentAbove": int64(50), "freeBlocksAbove": int64(100), "idleSeconds": int64(60)}))),
		},
		{
			name:    "shrink percent not above grow",
			obj:     autoscaled("Auto", pool("a", "10.64.0.0/12", set("shrink", map[string]any{"freePercentAbove": int64(20)}))),
			wantErr: "shrink.freePercentAbove must be greater than grow.freePercentBelow",
		},
		{
			name: "shrink blocks not above grow",
			obj: autoscaled("Auto", pool("a", "10.64.0.0/12",
				set("grow", map[string]any{"freeBlocksBelow": int64(10)}),
				set("shrink", map[string]any{"freeBlocksAbove": int64(10)}))),
			wantErr: "shrink.freeBlocksAbove must be greater than grow.freeBlocksBelow",
		},
		{name: "shrink without threshold", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("shrink", map[string]any{"idleSeconds": int64(60)}))), wantErr: "shrink needs freeBlocksAbove, freePercentAbove or both"},
		{name: "shrink idle too long", obj: autoscaled("Auto", pool("a", "10.64.0.0/12", set("shrink", map[string]any{"freePercentAbove": int64(50), "idleSeconds": int64(2592001)}))), wantErr: "should be less than or equal to 2592000"},
		{
			name: "cooldown out of bounds",
			obj: func() map[string]any {
				o := autoscaled("Auto")
				o["spec"].(map[string]any)["autoscaling"].(map[string]any)["cooldownSeconds"] = int64(86401)
				return o
			}(),
			wantErr: "should be less than or equal to 86400",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			errs := validateAll(t, crd, tc.obj, nil)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty(), errString(errs))
				return
			}
			g.Expect(errString(errs)).To(ContainSubstring(tc.wantErr))
		})
	}
}

// TestAutoscalingRulesAtMaxItems runs the pool rules on the most expensive
// spec: 8 IPv6 pools with 16 exclusions each.
func TestAutoscalingRulesAtMaxItems(t *testing.T) {
	g := NewWithT(t)
	crd := loadCRD(t, "podnetwork.io_podnetworks.yaml")
	var pools []map[string]any
	for i := range 8 {
		var excl []any
		for j := range 16 {
			excl = append(excl, fmt.Sprintf("fd00:1234:5678:9a%02x:def0:1234:56%02x:9a00/120", i, j))
		}
		pools = append(pools, pool(fmt.Sprintf("%02d%s", i, strings.Repeat("p", 38)), fmt.Sprintf("fd00:1234:5678:9a%02x::/64", i),
			set("rangePrefixLength", int64(100)), set("nodeMaskSize", int64(120)), set("exclusions", excl),
			set("grow", map[string]any{"freePercentBelow": int64(20), "freeBlocksBelow": int64(10)}),
			set("shrink", map[string]any{"freePercentAbove": int64(50), "freeBlocksAbove": int64(100)})))
	}
	errs, cost := validateWithCost(t, crd, autoscaled("Auto", pools...), nil)
	g.Expect(errs).To(BeEmpty(), errString(errs))
	t.Logf("runtime cost %d (per-call limit %d)", cost, celconfig.PerCallLimit)
	g.Expect(cost).To(BeNumerically("<", celconfig.PerCallLimit/2))
}

// rangeSet returns AutoscaledRangeSet default holding ranges.
func rangeSet(ranges ...map[string]any) map[string]any {
	rs := make([]any, 0, len(ranges))
	for _, r := range ranges {
		rs = append(rs, r)
	}
	return map[string]any{
		"apiVersion": "podnetwork.io/v1alpha1",
		"kind":       "AutoscaledRangeSet",
		"metadata":   map[string]any{"name": "default"},
		"spec":       map[string]any{"ranges": rs},
	}
}

func autoscaledRange(name, cidr string, nodeMaskSize int64) map[string]any {
	return map[string]any{"name": name, "pool": "p", "cidr": cidr, "nodeMaskSize": nodeMaskSize, "addedTime": "2026-01-01T00:00:00Z"}
}

func TestAutoscaledRangeSetRules(t *testing.T) {
	crd := loadCRD(t, "podnetwork.io_autoscaledrangesets.yaml")
	tests := []struct {
		name    string
		obj     map[string]any
		old     map[string]any
		wantErr string
	}{
		{name: "valid", obj: rangeSet(autoscaledRange("p-1", "10.64.0.0/20", 24), autoscaledRange("p-2", "10.64.0.0/19", 24))},
		{name: "empty", obj: rangeSet()},
		{
			name:    "name must be default",
			obj:     func() map[string]any { o := rangeSet(); o["metadata"] = map[string]any{"name": "other"}; return o }(),
			wantErr: `AutoscaledRangeSet is a singleton: its name must be "default"`,
		},
		{name: "overlap with another nodeMaskSize", obj: rangeSet(autoscaledRange("p-1", "10.64.0.0/20", 24), autoscaledRange("p-2", "10.64.0.0/19", 25)), wantErr: "ranges must not overlap"},
		{name: "same cidr twice", obj: rangeSet(autoscaledRange("p-1", "10.64.0.0/20", 24), autoscaledRange("p-2", "10.64.0.0/20", 24)), wantErr: "ranges must not overlap"},
		{name: "not canonical", obj: rangeSet(autoscaledRange("p-1", "10.64.1.0/20", 24)), wantErr: "canonical form"},
		{name: "nodeMaskSize below prefix", obj: rangeSet(autoscaledRange("p-1", "10.64.0.0/20", 19)), wantErr: "at least the prefix length"},
		{name: "nodeMaskSize above 30", obj: rangeSet(autoscaledRange("p-1", "10.64.0.0/20", 31)), wantErr: "at most 30 for an IPv4"},
		{name: "nodeMaskSize more than 24 bits", obj: rangeSet(autoscaledRange("p-1", "10.0.0.0/4", 29)), wantErr: "at most 24 bits longer"},
		{
			name:    "entries are immutable",
			old:     rangeSet(autoscaledRange("p-1", "10.64.0.0/20", 24)),
			obj:     rangeSet(autoscaledRange("p-1", "10.64.0.0/19", 24)),
			wantErr: "an autoscaled range is immutable",
		},
		{
			name: "entries may be added and removed",
			old:  rangeSet(autoscaledRange("p-1", "10.64.0.0/20", 24)),
			obj:  rangeSet(autoscaledRange("p-2", "10.64.0.0/19", 24)),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			errs := validateAll(t, crd, tc.obj, tc.old)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty(), errString(errs))
				return
			}
			g.Expect(errString(errs)).To(ContainSubstring(tc.wantErr))
		})
	}
}

func TestAutoscalingDefaults(t *testing.T) {
	g := NewWithT(t)
	pn := autoscaled("Auto", pool("a", "10.64.0.0/12", set("shrink", map[string]any{"freePercentAbove": int64(50)})))
	defaulting.Default(pn, structuralSchema(t, loadCRD(t, "podnetwork.io_podnetworks.yaml")))
	as := pn["spec"].(map[string]any)["autoscaling"].(map[string]any)
	g.Expect(as["cooldownSeconds"]).To(Equal(int64(60)))
	p := as["pools"].([]any)[0].(map[string]any)
	g.Expect(p["maxRanges"]).To(Equal(int64(4)))
	g.Expect(p["growBy"]).To(Equal("ExpandThenAdd"))
	g.Expect(p["shrink"].(map[string]any)["idleSeconds"]).To(Equal(int64(3600)))
}
