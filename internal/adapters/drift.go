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

package adapters

import (
	"fmt"
	"slices"
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/text"
)

// Config is an adapter's component configuration as read from the cluster,
// for Drift.
type Config struct {
	// Adapter is the adapter's name, its PodNetworkConsumer's.
	Adapter string
	// Text is the content of the ConfigMap key; Found is false when the
	// ConfigMap or the key is missing.
	Text  string
	Found bool
	// Running says whether the adapter runs (its PodNetworkConsumer
	// exists), so that the operator rewrites the configuration.
	Running bool
	// Covered reads Text (the descriptor's Covered).
	Covered func(text string) (Covered, error)
	// Acks are the adapter's acknowledgements (its PodNetworkConsumer's
	// status.ranges). A range it accepted as not carried yet
	// (IsNotCarried: flannel keeps IPv6 off until no node can lack an IPv6
	// podCIDR) is left out of the configuration on purpose: no drift.
	Acks []v1alpha1.ConsumerRangeStatus
}

// Drift compares the configuration with the ranges pn tracks (nil: no
// PodNetwork) and returns what it covers, the drift in words (each a
// problem now, not only until the adapter's next rewrite: the key is
// missing while the adapter runs, the configuration cannot be read, or it
// leaves out a range in use) and whether it was compared with the ranges
// at all: false when it is missing or unreadable, does not depend on the
// ranges (kube-proxy's NodeCIDR mode), or there is no range yet. Only then
// is what the adapter would write worth planning. `kubectl podnetwork
// check` and the operator's audit report the same drift.
//
// A missing configuration of an adapter that does not run is no drift:
// the component may be configured otherwise, or not installed.
func (c Config) Drift(pn *v1alpha1.PodNetwork) (covered Covered, drift []string, compared bool) {
	if !c.Found {
		if c.Running {
			drift = append(drift, fmt.Sprintf("the %s adapter's ConfigMap key is missing", c.Adapter))
		}
		return Covered{}, drift, false
	}
	covered, err := c.Covered(c.Text)
	if err != nil {
		return Covered{}, []string{fmt.Sprintf("cannot be read as the %s configuration: %v", c.Adapter, err)}, false
	}
	if covered.RangeIndependent != "" || pn == nil || len(pn.Status.Ranges) == 0 {
		return covered, nil, false
	}
	if missing := c.notCarriedLeftOut(Uncovered(covered, pn)); len(missing) > 0 {
		rewrite := "the operator rewrites it while it runs"
		if !c.Running {
			rewrite = fmt.Sprintf("the %s adapter is off (no PodNetworkConsumer %s), so nothing rewrites it", c.Adapter, c.Adapter)
		}
		drift = append(drift, fmt.Sprintf("%s covers %s, which leaves out the ranges in use %s: nodes there lose their network when %s restarts; %s",
			c.Adapter, text.List(covered.Prefixes), describeRanges(missing), c.Adapter, rewrite))
	}
	return covered, drift, true
}

// notCarriedLeftOut drops from missing the ranges whose current phase the
// adapter accepted as not carried yet.
func (c Config) notCarriedLeftOut(missing []v1alpha1.RangeStatus) []v1alpha1.RangeStatus {
	return slices.DeleteFunc(missing, func(rs v1alpha1.RangeStatus) bool {
		for _, a := range c.Acks {
			if a.Name == rs.Name && a.CIDR == rs.CIDR && a.Phase == rs.Phase && a.Result == v1alpha1.AckAccepted && IsNotCarried(a.Message) {
				return true
			}
		}
		return false
	})
}

func describeRanges(rs []v1alpha1.RangeStatus) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmt.Sprintf("%s (%s, %s)", r.Name, r.CIDR, r.Phase)
	}
	return strings.Join(s, ", ")
}
