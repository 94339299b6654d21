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
