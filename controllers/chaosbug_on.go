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

package controllers

import "podnetwork.io/operator/internal/chaosbug"

// seededBugUnfencedWrite, for the chaos suite only (bin/manager-chaosbug
// with chaosbug.Env naming it): the write fence lets every write through, so
// a leader woken from a pause writes without the lease.
var seededBugUnfencedWrite = chaosbug.Active(chaosbug.UnfencedWrite)
