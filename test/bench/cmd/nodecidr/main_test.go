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

package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCounts(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr string
	}{
		{in: "1000,5000", want: []int{1000, 5000}},
		{in: " 1000, 10000 ,100000,", want: []int{1000, 10000, 100000}},
		{in: "5000", want: []int{5000}},
		{in: ""},
		{in: "0"}, // the former "off" of -dual-stack-nodes and -scale-nodes
		{in: " 0 "},
		{in: "0,1000", wantErr: `bad count "0" in -test`},
		{in: "-5", wantErr: `bad count "-5"`},
		{in: "1k", wantErr: `bad count "1k"`},
		{in: "1000,1000", wantErr: "count 1000 twice in -test"},
	} {
		got, err := parseCounts("test", tc.in)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseCounts(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.wantErr)
			}
		case err != nil || !slices.Equal(got, tc.want):
			t.Errorf("parseCounts(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    options
		ok   bool
	}{
		{"defaults", options{steadyNodes: 1000, dualStackNodes: []int{5000}}, true},
		{"the dual-stack steady arrival", options{steadyNodes: 1000, dualStack: true, steadyDualStack: true}, true},
		{"without -dual-stack", options{steadyNodes: 1000, steadyDualStack: true}, false},
		{"without a steady arrival", options{dualStack: true, dualStackNodes: []int{5000}, steadyDualStack: true}, false},
	} {
		if err := tc.o.check(); (err == nil) != tc.ok {
			t.Errorf("%s: check() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
