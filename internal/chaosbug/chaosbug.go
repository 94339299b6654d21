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

// Package chaosbug names the bugs the chaos suite (test/chaos,
// docs/reliability.md) seeds into the operator to prove that its history
// checker fails when it should. An operator built with -tags chaosbug
// carries every seeded bug, and the environment variable Env names the one
// that is active in a process (none when it is unset), so one binary serves
// every seeded-bug run. Without the tag Active is constant false and every
// hook compiles away.
package chaosbug

// Env names the active seeded bug in a chaosbug build.
const Env = "PODNETWORK_CHAOSBUG"

// The seeded bugs. test/chaos maps each to the invariant that must catch it.
const (
	// SkipQuarantine: a block a released node held is not remembered as
	// freed, so the same leader hands it out again at once
	// (internal/allocator).
	SkipQuarantine = "skip-quarantine"
	// StaleRebuildFreedAt: a rebuild keeps the freedAt status.quarantine
	// lists for a recorded, unheld block however old it is, so a block
	// reused and freed again since that listing is handed out early after a
	// fail-over (internal/allocator, HoldBack).
	StaleRebuildFreedAt = "stale-rebuild-freedat"
	// RebuildIgnoresRecord: HoldBack holds back nothing, so a
	// rebuild trusts status.quarantine alone and hands out at once, as
	// never-used, a block freed after the last status write or while no
	// leader ran (internal/allocator).
	RebuildIgnoresRecord = "rebuild-ignores-record"
	// UnfencedWrite: the write fence lets every write through, so a leader
	// woken from a pause writes without the lease (controllers, fence.go).
	UnfencedWrite = "unfenced-write"
	// PrematureActivation: a Pending range becomes Active once any required
	// consumer accepted it instead of every one (internal/lifecycle).
	PrematureActivation = "premature-activation"
)

// Names lists the seeded bugs.
var Names = []string{SkipQuarantine, RebuildIgnoresRecord, StaleRebuildFreedAt, UnfencedWrite, PrematureActivation}
