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

package chaos

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"
)

// Kind is a kind of process fault.
type Kind string

// The process faults.
const (
	KillLeader       Kind = "SIGKILL leader"
	KillStandby      Kind = "SIGKILL standby"
	PauseLeader      Kind = "SIGSTOP leader"
	RestartAPIServer Kind = "kube-apiserver restart"
	RestartEtcd      Kind = "etcd restart"
)

// Kinds lists the process faults in report order.
var Kinds = []Kind{KillLeader, KillStandby, PauseLeader, RestartAPIServer, RestartEtcd}

// Fault is one scheduled process fault.
type Fault struct {
	// At is the time into the fault window.
	At   time.Duration
	Kind Kind
	// Hard restarts with SIGKILL instead of SIGTERM (restarts only).
	Hard bool
	// Pause is how long a paused leader stays stopped: always longer than
	// its lease.
	Pause time.Duration
}

// Step is one scheduled change to the workload: a node wave or a range
// edit.
type Step struct {
	At time.Duration
	// Wave > 0 is node wave number Wave; otherwise Edit names the edit.
	Wave int
	Edit RangeEdit
	// Full makes the wave create nodes up to the maximum.
	Full bool
	// WaitServed makes the run wait, after the wave, until NodeIPAM has
	// served its nodes (waitServed): the first wave under ReuseOldest,
	// whose early reuses must happen before the switch to a delay of 0.
	WaitServed bool
}

// Plan is everything a run does, derived from the configuration alone.
type Plan struct {
	Faults []Fault
	Steps  []Step
}

// rng returns the random source of one purpose of a run: each purpose has
// its own stream, so changing how many faults there are does not move
// the node waves.
func rng(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream)) //nolint:gosec // reproducible test randomness
}

// Random streams.
const (
	streamFaults uint64 = iota + 1
	streamWaves
	streamConsumers
	streamNodes
)

// Schedule returns the plan of a run: every process fault at a uniformly
// random moment of the middle 90% of the window, one node wave per
// 1/Waves of the window (the middle one and the first under ReuseOldest
// full), and the range and policy edits at fixed fractions of it.
func Schedule(cfg Config) Plan {
	r := rng(cfg.Seed, streamFaults)
	var p Plan
	add := func(k Kind, n int) {
		for range n {
			f := Fault{
				At:   cfg.FaultWindow/20 + time.Duration(r.Float64()*float64(cfg.FaultWindow*9/10)),
				Kind: k,
				Hard: r.IntN(2) == 0,
			}
			if k == PauseLeader {
				f.Pause = LeaseDuration + time.Second + time.Duration(r.Float64()*float64(3*time.Second))
			}
			p.Faults = append(p.Faults, f)
		}
	}
	add(KillLeader, cfg.LeaderKills)
	add(KillStandby, cfg.StandbyKills)
	add(PauseLeader, cfg.LeaderPauses)
	add(RestartAPIServer, cfg.APIServerRestarts)
	add(RestartEtcd, cfg.EtcdRestarts)
	slices.SortStableFunc(p.Faults, func(a, b Fault) int { return cmp.Compare(a.At, b.At) })

	reuseOldestWave := 0 // the first wave under ReuseOldest
	for i := range cfg.Waves {
		at := cfg.FaultWindow * time.Duration(i) / time.Duration(cfg.Waves)
		if reuseOldestWave == 0 && cfg.ReuseOldestAt > 0 && at >= time.Duration(float64(cfg.FaultWindow)*cfg.ReuseOldestAt) {
			reuseOldestWave = i + 1
		}
		// The middle wave fills the nodes up, and so does the first one
		// under ReuseOldest: the most nodes at once while c is out of the
		// spec, so every free block is quarantined when nodes come and
		// ReuseOldest hands out the oldest at once.
		full := i+1 == (cfg.Waves+1)/2 || i+1 == reuseOldestWave
		p.Steps = append(p.Steps, Step{At: at, Wave: i + 1, Full: full, WaitServed: i+1 == reuseOldestWave})
	}
	for _, e := range append(slices.Clone(rangeScript), policyEdits(cfg)...) {
		p.Steps = append(p.Steps, Step{At: time.Duration(float64(cfg.FaultWindow) * e.fraction), Edit: e.edit})
	}
	slices.SortStableFunc(p.Steps, func(a, b Step) int { return cmp.Compare(a.At, b.At) })
	return p
}

// Counts returns how many faults of each kind the plan holds.
func (p Plan) Counts() map[Kind]int {
	out := map[Kind]int{}
	for _, f := range p.Faults {
		out[f.Kind]++
	}
	return out
}
