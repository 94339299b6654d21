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

package text

import (
	"strings"
	"testing"
	"unicode/utf8"

	"podnetwork.io/operator/api/v1alpha1"
)

// TestMessage checks the one cap every message written to the API shares.
func TestMessage(t *testing.T) {
	if got := Message(strings.Repeat("x", 2000)); len(got) != v1alpha1.MaxMessageLength || !strings.HasSuffix(got, "...") {
		t.Errorf("Message gave %d bytes ending %q", len(got), got[len(got)-5:])
	}
	if got := Message(strings.Repeat("é", v1alpha1.MaxMessageLength)); !utf8.ValidString(got) || len(got) > v1alpha1.MaxMessageLength {
		t.Errorf("Message cut a character in half or left %d bytes", len(got))
	}
	if got := Message("short"); got != "short" {
		t.Errorf("Message(short) = %q", got)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"0123456789abc", 10, "0123456..."},
		// "é" is two bytes at offsets 6 and 7: a byte cut at 7 would split it.
		{"abcdeféghij", 10, "abcdef..."},
		{"日本語のテキスト", 10, "日本..."},
		{"abcdef", 2, ".."},
	}
	for _, tt := range tests {
		got := Truncate(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if len(got) > tt.n || !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q: longer than %d bytes or invalid UTF-8", tt.s, tt.n, got, tt.n)
		}
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add(strings.Repeat("é", 600), 1024)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 4096 || !utf8.ValidString(s) {
			t.Skip("outside Truncate's contract: valid UTF-8 and a bound in 0..4096")
		}
		got := Truncate(s, n)
		if len(got) > n || !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q", s, n, got)
		}
	})
}
