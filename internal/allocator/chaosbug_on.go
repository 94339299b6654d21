//go:build chaosbug

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

package allocator

import "podnetwork.io/operator/internal/chaosbug"

// The seeded bugs of this package, for the chaos suite only
// (bin/manager-chaosbug; the environment variable chaosbug.Env picks the
// active one):
//
//   - seededBugSkipQuarantine: a block a released node held is not
//     remembered as freed, so it is never-used again and, by the
//     lowest-index rule, the next block handed out;
//   - seededBugStaleRebuildFreedAt: HoldBack keeps every per-block freed
//     entry whatever its time, instead of holding back the ones freed before
//     its at, so a rebuild trusts a time restored from status.quarantine
//     that is too old to prove the block stayed free since;
//   - seededBugRebuildIgnoresRecord: HoldBack holds back nothing and returns
//     0, so a block of the issued-block record freed after the last status
//     write, or while no leader ran, is never-used after a rebuild.
var (
	seededBugSkipQuarantine       = chaosbug.Active(chaosbug.SkipQuarantine)
	seededBugStaleRebuildFreedAt  = chaosbug.Active(chaosbug.StaleRebuildFreedAt)
	seededBugRebuildIgnoresRecord = chaosbug.Active(chaosbug.RebuildIgnoresRecord)
)
