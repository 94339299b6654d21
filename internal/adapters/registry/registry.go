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

// Package registry is the one list of the operator's adapters. Adding an
// adapter is adding its Descriptor here (docs/architecture.md, "Adding an
// adapter"): the operator's flags and setup (controllers/adapters), the
// kubectl plugin (internal/cli/app), the adapters' ClusterRole
// (hack/chartgen) and the check of the chart's values (hack/chartgen's
// test) all range over All.
package registry

import (
	"cmp"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

// All returns the descriptors of every adapter, in the order the operator
// sets them up and the kubectl plugin shows them.
func All() []adapters.Descriptor {
	return []adapters.Descriptor{kubeproxy.Adapter, flannel.Adapter}
}

// RBAC returns the rules of the adapters' ClusterRole for descs:
// adapters.ComponentRBAC and each descriptor's RBAC, merged and sorted as
// controller-gen writes a role (rules ordered by API group and resource,
// verbs sorted, one rule per resource unless resources share group and
// verbs). None when descs is empty.
func RBAC(descs []adapters.Descriptor) []rbacv1.PolicyRule {
	if len(descs) == 0 {
		return nil
	}
	type groupResource struct{ group, resource string }
	verbs := map[groupResource]map[string]bool{}
	add := func(rules []rbacv1.PolicyRule) {
		for _, r := range rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					k := groupResource{g, res}
					if verbs[k] == nil {
						verbs[k] = map[string]bool{}
					}
					for _, v := range r.Verbs {
						verbs[k][v] = true
					}
				}
			}
		}
	}
	add(adapters.ComponentRBAC())
	for i := range descs {
		add(descs[i].RBAC)
	}
	// One rule per group and verb set, listing its resources.
	type groupVerbs struct{ group, verbs string }
	merged := map[groupVerbs][]string{}
	for k, vs := range verbs {
		list := make([]string, 0, len(vs))
		for v := range vs {
			list = append(list, v)
		}
		slices.Sort(list)
		gv := groupVerbs{k.group, strings.Join(list, ",")}
		merged[gv] = append(merged[gv], k.resource)
	}
	out := make([]rbacv1.PolicyRule, 0, len(merged))
	for gv, resources := range merged {
		slices.Sort(resources)
		out = append(out, rbacv1.PolicyRule{APIGroups: []string{gv.group}, Resources: resources, Verbs: strings.Split(gv.verbs, ",")})
	}
	slices.SortFunc(out, func(a, b rbacv1.PolicyRule) int {
		return cmp.Or(cmp.Compare(a.APIGroups[0], b.APIGroups[0]), slices.Compare(a.Resources, b.Resources))
	})
	return out
}
