package fit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
)

// Options choose what a fit computes. The zero value fits the Default
// algorithms over one state for all the traffic, on the grids chosen from
// the traffic, confirming each frontier's knee.
type Options struct {
	// Algorithms are the algorithms to fit, in the order the Result lists
	// them; nil is Default. Each must be in Supported.
	Algorithms []algorithms.Algorithm
	// Rates are rates to fit beside the grid chosen from the traffic (see
	// RateGrid). A rate an algorithm cannot take (nginx: per second or per
	// minute only; redis-cell: a whole number of seconds) is left out of
	// that algorithm's frontier.
	Rates []algorithms.Rate
	// Windows are windows to fit the windowed algorithms (fixed window,
	// sliding log, sliding counter) at, beside the default grid (see
	// WindowGrid). Each must be positive.
	Windows []time.Duration
	// ByKey fits a policy applied per key, one limiter state a key as the
	// lanes keep it: each point's size is then the largest any key needs,
	// and the Result also holds every key's own size and the KeyShare
	// quantile of them. Otherwise one state decides all the traffic, as a
	// limit over all keys does.
	ByKey bool
	// KeyShare is the quantile of keys, in parts per million, that
	// Point.Quantile covers (ByKey only): the smallest size under which at
	// least KeyShare of the keys need no more. 0 is DefaultKeyShare; at
	// most 1,000,000 (the largest key's size: the point's own).
	KeyShare int64
	// RejectAtMost is a share of requests, in parts per million, the
	// policy may refuse (0 ≤ RejectAtMost < 1,000,000). When positive, each
	// feasible point also gets a Budget: the size found by bisection whose
	// refused share, measured by a whole pass of the real limiter, is at
	// most RejectAtMost, while the size one less refuses more.
	RejectAtMost int64
	// Confirm says which answers the real limiters confirm: ConfirmKnees
	// (the zero value) or ConfirmAll.
	Confirm Confirm
	// Survey, when set, is a survey of the source made while it was read
	// (NewSurvey with ByKey's value, then Add with each request the
	// source yields): Fit then makes no survey pass of its own. A source
	// that then yields other requests is an error of a later pass.
	Survey *Survey
}

// Confirm says which of a fit's answers are confirmed with real limiters.
type Confirm uint8

const (
	// ConfirmKnees confirms each frontier's knee: the policy --save keeps.
	ConfirmKnees Confirm = iota
	// ConfirmAll confirms every feasible point: two limiters a point more
	// in the confirming pass.
	ConfirmAll
)

// DefaultKeyShare is the quantile of keys a ByKey fit reports when
// Options.KeyShare is 0: 99%.
const DefaultKeyShare = 990_000

// PPM is a whole share in parts per million.
const PPM = 1_000_000

// Supported lists the algorithms fit fits exactly: Default, and
// x/time/rate, whose float64 arithmetic is run at every point of its
// frontier (two real limiters a rate), which is why it is fitted only
// when asked for.
var Supported = append(slices.Clip(Default), algorithms.XTimeRate)

// Default lists the algorithms a fit fits unless told otherwise, in the
// order a Result lists them: those whose integer arithmetic fit computes
// in one pass, confirming only each knee with real limiters.
var Default = []algorithms.Algorithm{
	algorithms.TokenBucket, algorithms.GCRA, algorithms.LeakyBucket,
	algorithms.FixedWindow, algorithms.SlidingLog, algorithms.SlidingCounter,
	algorithms.NginxLimitReq, algorithms.RedisCell,
}

// normalised is o with its defaults filled in, or why o cannot be used.
func (o Options) normalised() (Options, error) {
	if o.Algorithms == nil {
		o.Algorithms = Default
	}
	if o.Survey != nil && o.Survey.byKey != o.ByKey {
		return o, fmt.Errorf("fit: a survey made for a fit by key %v given to one by key %v", o.Survey.byKey, o.ByKey)
	}
	seen := map[algorithms.Algorithm]bool{}
	for _, a := range o.Algorithms {
		if !slices.Contains(Supported, a) {
			return o, fmt.Errorf("fit: %q cannot be fitted exactly (fit supports %v)", a, Supported)
		}
		if seen[a] {
			return o, fmt.Errorf("fit: %q is listed twice", a)
		}
		seen[a] = true
	}
	for _, r := range o.Rates {
		if err := r.Validate(); err != nil {
			return o, fmt.Errorf("fit: %w", err)
		}
	}
	for _, w := range o.Windows {
		if w <= 0 {
			return o, fmt.Errorf("fit: window %s must be positive", algorithms.FormatDuration(w))
		}
	}
	if o.KeyShare == 0 {
		o.KeyShare = DefaultKeyShare
	}
	if o.KeyShare < 0 || o.KeyShare > PPM {
		return o, fmt.Errorf("fit: key share %d ppm must be from 1 to %d", o.KeyShare, PPM)
	}
	if o.RejectAtMost < 0 || o.RejectAtMost >= PPM {
		return o, fmt.Errorf("fit: reject-at-most %d ppm must be from 0 to %d", o.RejectAtMost, PPM-1)
	}
	if o.Confirm > ConfirmAll {
		return o, fmt.Errorf("fit: unknown confirm mode %d", o.Confirm)
	}
	return o, nil
}

// SupportedWords names the algorithms fit supports in a sentence: "a, b
// and c", for the messages that refuse another.
func SupportedWords() string {
	names := make([]string, len(Supported))
	for i, a := range Supported {
		names[i] = string(a)
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
