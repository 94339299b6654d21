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

package chaosbug

import (
	"fmt"
	"os"
	"slices"
)

// Built says this binary carries the seeded bugs.
const Built = true

// active is the bug Env names, read once at start: the hooks read it from
// package variables initialised at start too.
var active = os.Getenv(Env)

func init() {
	// A misspelt name would leave every bug off and make a seeded-bug run
	// pass for the wrong reason: refuse to start instead.
	if active != "" && !slices.Contains(Names, active) {
		panic(fmt.Sprintf("%s=%q names no seeded bug (one of %v)", Env, active, Names))
	}
}

// Active reports whether the seeded bug name is the active one.
func Active(name string) bool { return active == name }
