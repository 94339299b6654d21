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

package memlimit

import "testing"

func TestSoftLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    int64
		set     bool
		wantErr bool
	}{
		{name: "no container limit", env: map[string]string{}},
		{name: "90% of the container limit", env: map[string]string{ContainerLimitEnv: "536870912"}, want: 483183820, set: true},
		{name: "GOMEMLIMIT wins", env: map[string]string{"GOMEMLIMIT": "300MiB", ContainerLimitEnv: "536870912"}},
		{name: "not a number", env: map[string]string{ContainerLimitEnv: "512Mi"}, wantErr: true},
		{name: "zero", env: map[string]string{ContainerLimitEnv: "0"}, wantErr: true},
	} {
		got, set, err := SoftLimit(func(k string) string { return tc.env[k] })
		if (err != nil) != tc.wantErr || got != tc.want || set != tc.set {
			t.Errorf("%s: SoftLimit = %d, %v, %v; want %d, %v, error %v", tc.name, got, set, err, tc.want, tc.set, tc.wantErr)
		}
	}
}
