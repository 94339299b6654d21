package adapters

import (
	"crypto/sha256"
	"encoding/hex"
)

// ConfigHash returns the hash an adapter writes into its DaemonSet's pod
// template (rollout.ConfigHashAnnotation). It hashes the whole content of the
// managed ConfigMap key, not only the managed fields: a component reads the
// whole file at start, so any edit of it, the adapter's or an admin's, is
// rolled out the same way and the adapter's acknowledgements always describe
// what the pods run.
func ConfigHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:16])
}
