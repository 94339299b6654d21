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

// Package text shapes the messages the operator writes into API fields and
// events: the one bound on their length, which the API server limits, and
// how they list prefixes and addresses.
package text

import (
	"unicode/utf8"

	"podnetwork.io/operator/api/v1alpha1"
)

// Message bounds a message written to the API, a status message field or an
// Event's note, to v1alpha1.MaxMessageLength, the one limit of both.
func Message(s string) string { return Truncate(s, v1alpha1.MaxMessageLength) }

// truncationMark ends a message that was cut.
const truncationMark = "..."

// Truncate cuts s to at most n bytes, on a rune boundary so no UTF-8
// character is cut in half (the API server refuses invalid UTF-8), and
// marks the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len(truncationMark)
	if cut < 0 {
		return truncationMark[:n]
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncationMark
}
