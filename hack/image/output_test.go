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

import "testing"

func TestRefAnnotations(t *testing.T) {
	for ref, want := range map[string]string{
		"podnetwork-operator:dev":                    containerdDefaultRegistry + "/library/podnetwork-operator:dev",
		"podnetwork-operator":                        containerdDefaultRegistry + "/library/podnetwork-operator:latest",
		"example/podnetwork-operator:1.0.0":          containerdDefaultRegistry + "/example/podnetwork-operator:1.0.0",
		"registry.example/podnetwork-operator:0.2.0": "registry.example/podnetwork-operator:0.2.0",
		"localhost:5000/team/podnetwork-operator:x":  "localhost:5000/team/podnetwork-operator:x",
	} {
		anns, err := refAnnotations(ref)
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if got := anns[annotationImageName]; got != want {
			t.Errorf("%s: image name %q, want %q", ref, got, want)
		}
	}
	if _, err := refAnnotations("podnetwork-operator@sha256:0123"); err == nil {
		t.Error("a digest reference was accepted; the layout needs a tag")
	}
}

func TestParsePlatforms(t *testing.T) {
	ps, err := parsePlatforms("linux/arm64, linux/amd64")
	if err != nil || len(ps) != 2 || ps[0].Architecture != "amd64" {
		t.Errorf("parsePlatforms: %v %v, want amd64 then arm64", ps, err)
	}
	for _, bad := range []string{"windows/amd64", "linux/amd64,linux/amd64", ""} {
		if _, err := parsePlatforms(bad); err == nil {
			t.Errorf("parsePlatforms(%q) accepted", bad)
		}
	}
}
