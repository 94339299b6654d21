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
	"reflect"
	"slices"
	"testing"
)

func TestScheduleIsReproducible(t *testing.T) {
	for _, cfg := range []Config{Short(1), Short(2), Long(1)} {
		p := Schedule(cfg)
		if !reflect.DeepEqual(p, Schedule(cfg)) {
			t.Fatalf("%s seed %d: two schedules differ", cfg.Name, cfg.Seed)
		}
		want := map[Kind]int{KillLeader: cfg.LeaderKills, KillStandby: cfg.StandbyKills, PauseLeader: cfg.LeaderPauses,
			RestartAPIServer: cfg.APIServerRestarts, RestartEtcd: cfg.EtcdRestarts}
		if got := p.Counts(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s seed %d: faults %v, want %v", cfg.Name, cfg.Seed, got, want)
		}
		for i, f := range p.Faults {
			if f.At < 0 || f.At > cfg.FaultWindow || (i > 0 && f.At < p.Faults[i-1].At) {
				t.Errorf("%s seed %d: fault %d at %s, out of order or outside the %s window", cfg.Name, cfg.Seed, i, f.At, cfg.FaultWindow)
			}
			if f.Kind == PauseLeader && f.Pause <= LeaseDuration {
				t.Errorf("%s seed %d: a pause of %s does not outlast the %s lease", cfg.Name, cfg.Seed, f.Pause, LeaseDuration)
			}
		}
		waves, edits := 0, 0
		for _, s := range p.Steps {
			if s.Wave > 0 {
				waves++
			} else {
				edits++
			}
		}
		if waves != cfg.Waves || edits != len(rangeScript) {
			t.Errorf("%s seed %d: %d waves and %d edits, want %d and %d", cfg.Name, cfg.Seed, waves, edits, cfg.Waves, len(rangeScript))
		}
	}
	if reflect.DeepEqual(Schedule(Short(1)).Faults, Schedule(Short(2)).Faults) {
		t.Error("seeds 1 and 2 schedule the same faults")
	}
}

func TestRangeScriptEndsWithEveryRange(t *testing.T) {
	got := finalRangeNames()
	slices.Sort(got)
	want := []string{"a", "ab", "b", "c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranges after the script: %v, want %v", got, want)
	}
}
