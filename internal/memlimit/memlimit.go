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

// Package memlimit derives the Go runtime's soft memory limit from the
// container's memory limit.
//
// Without a soft limit the Go heap grows to twice the live heap before a
// collection, and the operator's start-up (listing every node twice: the
// informer and the NodeIPAM rebuild) leaves a peak several times its live
// heap (docs/performance.md). With a limit the runtime collects, and returns
// memory to the OS, before the container reaches its own limit.
package memlimit

import (
	"fmt"
	"strconv"
)

// ContainerLimitEnv names the variable the Helm chart fills from the
// container's limits.memory (downward API, in bytes).
const ContainerLimitEnv = "PODNETWORK_MEMORY_LIMIT"

// Fraction of the container's limit given to the Go runtime; the rest covers
// memory the runtime does not count (stacks of threads, C libraries) and
// its reaction time.
const Fraction = 0.9

// SoftLimit returns the soft memory limit to set, in bytes, and whether to
// set one. An explicit GOMEMLIMIT wins (the runtime has applied it already);
// so does the absence of a container limit.
func SoftLimit(getenv func(string) string) (int64, bool, error) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false, nil
	}
	v := getenv(ContainerLimitEnv)
	if v == "" {
		return 0, false, nil
	}
	limit, err := strconv.ParseInt(v, 10, 64)
	if err != nil || limit <= 0 {
		return 0, false, fmt.Errorf("%s=%q is not a positive number of bytes", ContainerLimitEnv, v)
	}
	return int64(float64(limit) * Fraction), true, nil
}
