//go:build !chaosbug

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

// Built says this binary carries the seeded bugs: only with -tags chaosbug.
const Built = false

// Active is always false without -tags chaosbug; the hooks are constants
// then and do not use it.
func Active(string) bool { return false }
