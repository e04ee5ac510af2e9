package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  string
	}{
		{"5/s", 5, ""},
		{"5", 5, ""},
		{"300/m", 5, ""},
		{"36000/h", 10, ""},
		{"0.5/s", 0.5, ""},
		{"5/d", 0, "want R/s, R/m or R/h"},
		{"x/s", 0, "invalid syntax"},
		{"0.01/s", 0, "want 0.1/s to 100000/s"},
		{"1e6/s", 0, "want 0.1/s to 100000/s"},
		{"NaN/s", 0, "want 0.1/s"},
	} {
		got, err := parseRate(tc.in)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("parseRate(%q) = %v, %v; want %v, error with %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseArgsRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-lines", "0"}, "-lines 0: want at least 1"},
		{[]string{"-format", "csv"}, `-format "csv": want combined, common or json`},
		{[]string{"-start", "yesterday"}, "-start:"},
		{[]string{"-start", "1969-12-31T00:00:00Z"}, "want a year from 1970 to 2200"},
		{[]string{"-start", "2026-01-01T00:00:00.5Z"}, "want whole seconds"},
		{[]string{"-top", "1.5"}, "-top 1.5: want a share from 0 to 1"},
		{[]string{"-rate", "0"}, "-rate:"},
		{[]string{"out.log"}, `unexpected argument "out.log"`},
	} {
		_, err := parseArgs(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parseArgs(%q) = %v, want an error with %q", tc.args, err, tc.err)
		}
	}
}

func TestRunExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-lines", "10"}, 0},
		{[]string{"-h"}, 0},
		{[]string{"-lines", "-1"}, 2},
		{[]string{"-nope"}, 2},
	} {
		if code := run(tc.args, io.Discard, io.Discard); code != tc.code {
			t.Errorf("run(%q) = %d, want %d", tc.args, code, tc.code)
		}
	}
}
