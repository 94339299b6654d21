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

package flannel

import (
	"encoding/json"
	"fmt"
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/cidr"
)

// Networks are the values the adapter manages in net-conf.json. An empty
// prefix leaves its key alone.
type Networks struct {
	Network     string
	IPv6Network string
	// EnableIPv6 sets EnableIPv6 to true; the adapter never sets it back to
	// false, since nodes may still hold IPv6 podCIDRs.
	EnableIPv6 bool
}

// Plan decides net-conf.json for the current ranges: per family, the
// smallest prefix that contains every accepted desired range and every node
// podCIDR of that family. A family with nothing to cover keeps its current
// value, because flanneld requires Network while IPv4 is enabled. Pending
// IPv4 ranges are rejected while net-conf.json disables IPv4
// (disabledFamilies). IPv6 ranges are accepted; on a flannel that runs
// IPv4 only they turn IPv6Network and EnableIPv6 on once ipv6Gate allows
// it, and are acknowledged as accepted, not carried, until then, and
// until the rollout marked PeersAnnotation (ipv6Peers) is done.
func Plan(current string, in adapters.Input) (adapters.Plan, error) {
	conf, err := Parse(current)
	if err != nil {
		return adapters.Plan{}, err
	}
	rules := adapters.Rules{Subject: "flannel (Network, IPv6Network)", CoverNodePodCIDRs: true,
		Disabled: disabledFamilies(conf)}
	d := adapters.Decide(in, rules)
	var want Networks
	var notCarried map[string]string
	var note string
	if p, ok := d.Covering[cidr.IPv4]; ok && conf.IPv4Enabled() {
		want.Network = p.String()
	}
	if p, ok := d.Covering[cidr.IPv6]; ok {
		enable, why := conf.IPv6Enabled(), ""
		if !enable {
			enable, why = ipv6Gate(in)
		}
		if enable {
			want.IPv6Network = p.String()
			want.EnableIPv6 = true
		} else {
			note = notCarriedNote(why)
			notCarried = notCarriedRanges(in, d, note)
		}
	}
	plan := adapters.Plan{Decision: d, NotCarried: notCarried, Note: note}
	out, err := SetNetworks(current, want)
	if err != nil {
		return adapters.Plan{}, err
	}
	after, err := Parse(out)
	if err != nil {
		return adapters.Plan{}, err
	}
	plan.Config, plan.Summary = out, summary(after)
	mark, waiting := ipv6Peers(after, in)
	plan.Template = map[string]string{PeersAnnotation: mark}
	if waiting != "" && plan.NotCarried == nil {
		if nc := notCarriedRanges(in, d, peersNote(waiting)); len(nc) > 0 {
			plan.NotCarried, plan.Note = nc, peersNote(waiting)
		}
	}
	return plan, nil
}

// notCarriedRanges gives note to every desired IPv6 range (Pending, Active
// or Draining) the adapter accepts without carrying it: a Draining range
// never carried is not "still included" either.
func notCarriedRanges(in adapters.Input, d adapters.Decision, note string) map[string]string {
	out := map[string]string{}
	for _, rs := range v1alpha1.DesiredRanges(in.PodNetwork) {
		if _, rejected := d.Rejected[rs.Name]; !rejected && isFamily(rs.CIDR, cidr.IPv6) {
			out[rs.Name] = note
		}
	}
	return out
}

func summary(c *NetConf) string {
	var parts []string
	if c.Network != "" {
		parts = append(parts, "Network "+c.Network)
	}
	if c.IPv6Network != "" {
		parts = append(parts, "IPv6Network "+c.IPv6Network)
	}
	if len(parts) == 0 {
		return "no Network"
	}
	return strings.Join(parts, ", ")
}

// SetNetworks returns text with the managed keys set as want says and every
// other byte unchanged. It returns text itself when nothing changes, and
// checks the result: every member it did not write keeps its exact bytes.
func SetNetworks(text string, want Networks) (string, error) {
	before, err := Parse(text)
	if err != nil {
		return "", err
	}
	var sets []set
	if want.Network != "" && want.Network != before.Network {
		sets = append(sets, set{key: keyNetwork, value: jsonString(want.Network)})
	}
	if want.IPv6Network != "" && want.IPv6Network != before.IPv6Network {
		sets = append(sets, set{key: keyIPv6Network, value: jsonString(want.IPv6Network), after: keyNetwork})
	}
	if want.EnableIPv6 && !before.IPv6Enabled() {
		sets = append(sets, set{key: keyEnableIPv6, value: "true", after: keyIPv6Network})
	}
	if len(sets) == 0 {
		return text, nil
	}
	obj, err := parseObject(text)
	if err != nil {
		return "", err
	}
	out, err := obj.apply(sets)
	if err != nil {
		return "", err
	}
	if err := verify(obj, out, sets); err != nil {
		return "", fmt.Errorf("rewriting net-conf.json in place: %w", err)
	}
	return out, nil
}

// verify checks that out holds every set value and every other member of
// the original object byte for byte.
func verify(orig *object, out string, sets []set) error {
	got, err := parseObject(out)
	if err != nil {
		return err
	}
	written := map[string]string{}
	for _, s := range sets {
		written[strings.ToLower(s.key)] = s.value
	}
	for _, m := range got.members {
		if v, ok := written[strings.ToLower(m.key)]; ok {
			if out[m.valStart:m.valEnd] != v {
				return fmt.Errorf("%s is %s, want %s", m.key, out[m.valStart:m.valEnd], v)
			}
			delete(written, strings.ToLower(m.key))
		}
	}
	if len(written) > 0 {
		return fmt.Errorf("%d managed keys missing after the edit", len(written))
	}
	kept := map[string]string{}
	for _, m := range got.members {
		kept[m.key] = out[m.valStart:m.valEnd]
	}
	for _, m := range orig.members {
		if _, managed := writtenKey(sets, m.key); managed {
			continue
		}
		if kept[m.key] != orig.text[m.valStart:m.valEnd] {
			return fmt.Errorf("member %q changed", m.key)
		}
	}
	return nil
}

func writtenKey(sets []set, key string) (set, bool) {
	for _, s := range sets {
		if strings.EqualFold(s.key, key) {
			return s, true
		}
	}
	return set{}, false
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
