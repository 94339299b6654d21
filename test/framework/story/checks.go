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

package story

import (
	"fmt"
	"slices"
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// The checks the acts are made of.

func phaseIs(name string, want v1alpha1.RangePhase) func(*Env) error {
	return func(e *Env) error {
		if got := e.API.Phase(name); got != want {
			return fmt.Errorf("range %q is %q, want %q", name, got, want)
		}
		return nil
	}
}

func nodesWithPodCIDRs(want int) func(*Env) error {
	return func(e *Env) error {
		if got := e.API.NodesWithPodCIDRs(); got != want {
			return fmt.Errorf("%d nodes have podCIDRs, want %d", got, want)
		}
		return nil
	}
}

func accepted(rangeName string, consumers ...string) func(*Env) error {
	return func(e *Env) error {
		for _, c := range consumers {
			if a := e.API.Ack(c, rangeName); a == nil || a.Result != v1alpha1.AckAccepted {
				return fmt.Errorf("consumer %s has not accepted %q: %+v", c, rangeName, a)
			}
		}
		return nil
	}
}

func nodeEvent(typeReason string) func(*Env) error {
	return func(e *Env) error {
		if got := e.API.EventReasons("Node"); !slices.Contains(got, typeReason) {
			return fmt.Errorf("no node event %s among %v", typeReason, got)
		}
		return nil
	}
}

func holderCount(name string, want int32) func(*Env) error {
	return func(e *Env) error {
		if got := e.API.RangeStatus(name).HolderCount; got != want {
			return fmt.Errorf("range %q has %d holders, want %d", name, got, want)
		}
		return nil
	}
}

func namedHoldersAre(name string, want int) func(*Env) error {
	return func(e *Env) error {
		if got := e.API.RangeStatus(name).Holders; len(got) != want {
			return fmt.Errorf("range %q names %d holders, want %d: %v", name, len(got), want, got)
		}
		return nil
	}
}

func noHolders(prefix string) func(*Env) error {
	return func(e *Env) error {
		if got := e.API.Holders(prefix); len(got) > 0 {
			return fmt.Errorf("nodes %v still hold blocks in %s", got, prefix)
		}
		return nil
	}
}

func ready(e *Env) error {
	if c := e.API.Condition(v1alpha1.ReadyCondition); c == nil || c.Status != "True" {
		return fmt.Errorf("the PodNetwork is not Ready: %+v", c)
	}
	return nil
}

// cidrNotAvailable returns the first notes of the CIDRNotAvailable events.
func cidrNotAvailable(e *Env) []string {
	var out []string
	for _, ev := range e.API.Events("Node") {
		if ev.Reason == "CIDRNotAvailable" && len(out) < 2 {
			out = append(out, fmt.Sprintf("%s %s/%s: %s", ev.Type, ev.Regarding.Kind, ev.Regarding.Name, ev.Note))
		}
	}
	return out
}

// readyCondition describes the Ready condition.
func readyCondition(e *Env) []string {
	c := e.API.Condition(v1alpha1.ReadyCondition)
	if c == nil {
		return nil
	}
	return []string{fmt.Sprintf("Ready=%s (%s): %s", c.Status, c.Reason, c.Message)}
}

// poolStatus returns the autoscaler's report on a pool, nil when absent.
func poolStatus(e *Env, pool string) *v1alpha1.AutoscalingPoolStatus {
	pn, err := e.API.PodNetwork()
	if err != nil || pn.Status.Autoscaling == nil {
		return nil
	}
	for i := range pn.Status.Autoscaling.Pools {
		if p := &pn.Status.Autoscaling.Pools[i]; p.Name == pool {
			return p
		}
	}
	return nil
}

func poolReported(pool string) func(*Env) error {
	return func(e *Env) error {
		if p := poolStatus(e, pool); p == nil || p.CapacityBlocks == nil {
			return fmt.Errorf("pool %q not reported yet: %+v", pool, p)
		}
		return nil
	}
}

// poolMessage describes a pool's state.
func poolMessage(pool string) func(*Env) []string {
	return func(e *Env) []string {
		p := poolStatus(e, pool)
		if p == nil {
			return nil
		}
		return []string{fmt.Sprintf("%s: %s", p.State, p.Message)}
	}
}

func autoscaledActive(pool string) func(*Env) error {
	return func(e *Env) error {
		pn, err := e.API.PodNetwork()
		if err != nil {
			return err
		}
		for _, rs := range pn.Status.Ranges {
			if rs.Pool == pool && rs.Phase == v1alpha1.RangePhaseActive {
				return nil
			}
		}
		return fmt.Errorf("no range of pool %q is Active: %+v", pool, pn.Status.Ranges)
	}
}

func noNodeWaited(prefix string) func(*Env) error {
	return func(e *Env) error {
		for _, ev := range e.API.Events("Node") {
			if ev.Reason == "CIDRNotAvailable" && strings.HasPrefix(ev.Regarding.Name, prefix) {
				return fmt.Errorf("node %s waited: %s", ev.Regarding.Name, ev.Note)
			}
		}
		return nil
	}
}

func coveredByPool(name, pool string) func(*Env) error {
	return func(e *Env) error {
		by := e.API.RangeStatus(name).CoveredBy
		if by == "" || e.API.RangeStatus(by).Pool != pool {
			return fmt.Errorf("range %q is covered by %q, want a range of pool %q", name, by, pool)
		}
		return nil
	}
}

// autoscaledEvents returns the notes of the RangeAutoscaled events.
func autoscaledEvents(e *Env) []string {
	var out []string
	for _, ev := range e.API.Events("PodNetwork") {
		if ev.Reason == v1alpha1.RangeAutoscaledEvent {
			out = append(out, fmt.Sprintf("%s %s: %s", ev.Type, ev.Reason, ev.Note))
		}
	}
	return out
}
