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

package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table collects rows and prints them in aligned columns, as kubectl does,
// with detail lines under a row that stay outside the columns.
type table struct {
	rows []tableRow
}

type tableRow struct {
	cells  []string
	detail string
}

func newTable(header ...string) *table { return &table{rows: []tableRow{{cells: header}}} }

func (t *table) row(cells ...string) { t.rows = append(t.rows, tableRow{cells: cells}) }

// detail adds an indented line under the previous row.
func (t *table) detail(format string, args ...any) {
	t.rows = append(t.rows, tableRow{detail: "    " + fmt.Sprintf(format, args...)})
}

func (t *table) write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r.cells {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		if r.cells == nil {
			b.WriteString(r.detail)
			b.WriteByte('\n')
			continue
		}
		for i, c := range r.cells {
			if i == len(r.cells)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+3))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// orDash shows "-" for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// list joins names, showing at most limit and counting the rest.
func list(names []string, total int, limit int) string {
	if total < len(names) {
		total = len(names)
	}
	shown := names
	if len(shown) > limit {
		shown = shown[:limit]
	}
	out := strings.Join(shown, ", ")
	if rest := total - len(shown); rest > 0 {
		out += fmt.Sprintf(" and %d more", rest)
	}
	return out
}

// count says "1 node", "2 nodes".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
