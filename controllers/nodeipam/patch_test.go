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

package nodeipam

import "testing"

func TestPodCIDRsPatch(t *testing.T) {
	got, err := podCIDRsPatch("4711", []string{"10.0.1.0/24", "fd00:0:0:1::/64"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"resourceVersion":"4711"},"spec":{"podCIDR":"10.0.1.0/24","podCIDRs":["10.0.1.0/24","fd00:0:0:1::/64"]}}`
	if string(got) != want {
		t.Errorf("patch = %s\nwant    %s", got, want)
	}
	// Without a resourceVersion the patch would apply to any version of the
	// node, including one that got podCIDRs meanwhile.
	if _, err := podCIDRsPatch("", []string{"10.0.1.0/24"}); err == nil {
		t.Error("a patch without resourceVersion was built")
	}
	if _, err := podCIDRsPatch("4711", nil); err == nil {
		t.Error("a patch without blocks was built")
	}
}
