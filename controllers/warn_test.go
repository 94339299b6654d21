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

import (
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
)

// TestWarnUnfenced: the operator says at start that it runs without leader
// election, and only then.
func TestWarnUnfenced(t *testing.T) {
	for _, elect := range []bool{true, false} {
		var logged []string
		log := funcr.New(func(_, args string) { logged = append(logged, args) }, funcr.Options{})
		opts := DefaultOptions()
		opts.LeaderElect = elect
		warnUnfenced(log, opts)
		warned := len(logged) == 1 && strings.Contains(logged[0], "WARNING: leader election is off")
		if warned == elect || (elect && len(logged) > 0) {
			t.Errorf("leader election %v: logged %q", elect, logged)
		}
	}
}
