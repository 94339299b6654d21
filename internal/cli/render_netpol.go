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

package cli

import (
	"fmt"
	"strings"

	"podnetwork.io/operator/internal/netpolicy"
)

// writeNetworkPoliciesText prints the NetworkPolicies that leave the new
// ranges out; nothing when the change adds no range or there is no
// NetworkPolicy at all.
func writeNetworkPoliciesText(b *strings.Builder, np *NetworkPolicyPlan) error {
	if np == nil {
		return nil
	}
	ranges := strings.Join(np.NewRanges, ", ")
	switch {
	case np.Unreadable != nil:
		fmt.Fprintf(b, "\nNetworkPolicies could not be read (%s), so which of them leave out %s is not known; the rest of the plan stands.\n",
			np.Unreadable.Message, ranges)
		return nil
	case np.Checked == 0:
		return nil
	case len(np.LeftOut) == 0:
		fmt.Fprintf(b, "\nNetworkPolicies: none of %d leaves out %s.\n", np.Checked, ranges)
		return nil
	}
	fmt.Fprintf(b, "\nNETWORKPOLICIES that cover every range in use but leave out %s (%d of %d)\n", ranges, len(np.LeftOut), np.Checked)
	t := newTable("NAMESPACE/NAME", "RULE", "ALLOWS", "LEAVES OUT")
	for _, p := range np.LeftOut {
		for i, r := range p.Rules {
			name := p.Namespace + "/" + p.Name
			if i > 0 {
				name = ""
			}
			t.row(name, r.Rule, strings.Join(r.Allows, ", "), strings.Join(r.LeavesOut, ", "))
		}
	}
	if err := t.write(b); err != nil {
		return err
	}
	fmt.Fprintf(b, "  These rules do not match pods on the nodes of a range they leave out as they match today's: add its CIDR to the ipBlocks\n"+
		"  before it is Active, or annotate the policy %s=\"true\" if it means to allow only the ranges it lists.\n", netpolicy.IgnoreAnnotation)
	return nil
}
