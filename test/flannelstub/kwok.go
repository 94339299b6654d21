package flannelstub

import (
	"fmt"
	"os"
	"strings"
)

// WriteKwokStages copies kwok's stages file from src to dst, changed so that
// kwok no longer writes the NetworkUnavailable node condition. Its default
// node stages stamp NetworkUnavailable=False (RouteCreated) on every
// heartbeat with a strategic-merge patch, which would overwrite the
// FlannelIsUp stamp the stub writes in flanneld's place; every other
// condition is kept. It fails if the file does not have the expected shape.
func WriteKwokStages(src, dst string) error {
	in, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("reading kwok stages: %w", err)
	}
	lines := strings.Split(string(in), "\n")
	rewritten := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "{{ range NodeConditions }}" {
			continue
		}
		lines[i] += `{{ if ne .type "NetworkUnavailable" }}`
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "{{ end }}" {
				lines[j] += "{{ end }}"
				rewritten++
				i = j
				break
			}
		}
	}
	if rewritten == 0 {
		return fmt.Errorf("kwok stages %s: no node condition template found", src)
	}
	if err := os.WriteFile(dst, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return fmt.Errorf("writing kwok stages: %w", err)
	}
	return nil
}
