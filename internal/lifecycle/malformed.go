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

package lifecycle

import (
	"fmt"
	"sort"
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/text"
)

// maxMalformedLine bounds one Degraded line about malformed objects, so a
// flood of them never pushes the rest of the condition out.
const maxMalformedLine = 512

// malformedLines reports the nodes, ServiceCIDRs and consumers whose values
// the operator cannot read, or reads only in a legacy format, one line per
// kind of object (a MalformedInput event each when Degraded turns to
// MalformedInput, see degradedEvents). The values themselves are handled where they are
// read: an address or a ServiceCIDR that cannot be read names nothing to
// check a range against; a node's podCIDR that cannot be read makes the
// node a holder of every Draining range; an acknowledgement whose cidr is
// not a canonical prefix never matches a range.
func (c *computer) malformedLines(l *findings) {
	var nodes, svcs, consumers []string
	for _, n := range c.in.Nodes {
		if len(n.Problems) == 0 {
			continue
		}
		d := fmt.Sprintf("%q (%s", n.Name, strings.Join(n.Problems, "; "))
		if len(n.UnreadablePodCIDRs) > 0 {
			d += "; it counts as a holder of every Draining range"
		}
		nodes = append(nodes, d+")")
	}
	for _, s := range c.in.ServiceCIDRs {
		if len(s.Problems) > 0 {
			svcs = append(svcs, fmt.Sprintf("%q (%s)", s.Name, strings.Join(s.Problems, "; ")))
		}
	}
	for _, cons := range c.consumers {
		if bad := malformedAcks(cons.Acks); len(bad) > 0 {
			consumers = append(consumers, fmt.Sprintf("%q (%s)", cons.Name, listWords(bad, 3)))
		}
	}
	add := func(items []string, one, many string) {
		if len(items) == 0 {
			return
		}
		sort.Strings(items)
		subject := one
		if len(items) > 1 {
			subject = fmt.Sprintf(many, len(items))
		}
		line := text.Truncate(subject+": "+listWords(items, 3), maxMalformedLine)
		l.malformed = append(l.malformed, line)
	}
	add(nodes, "a node has podCIDRs or addresses the operator cannot read, or reads only in a legacy format",
		"%d nodes have podCIDRs or addresses the operator cannot read, or reads only in a legacy format")
	add(svcs, "a ServiceCIDR has cidrs the operator cannot read, or reads only in a legacy format",
		"%d ServiceCIDRs have cidrs the operator cannot read, or reads only in a legacy format")
	add(consumers, "a consumer acknowledges ranges with cidrs that are not canonical prefixes, which never count",
		"%d consumers acknowledge ranges with cidrs that are not canonical prefixes, which never count")
}

// malformedAcks describes the acknowledgements whose cidr is not a
// canonical prefix: no correct consumer writes one (it copies the cidr from
// status.ranges), and it never matches a range.
func malformedAcks(acks []v1alpha1.ConsumerRangeStatus) []string {
	var out []string
	for _, a := range acks {
		if _, err := cidr.ParseCanonical(a.CIDR); err != nil {
			out = append(out, text.Truncate(fmt.Sprintf("%s (cidr %q)", a.Name, a.CIDR), 128))
		}
	}
	return out
}
