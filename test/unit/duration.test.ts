// The one duration module (src/util/duration.ts): Go's ParseDuration for flags, kubectl's
// HumanDuration for every screen, Go's Duration.String for klog lines.

import {describe, expect, it} from 'vitest'
import {goDuration, humanDuration, parseDuration} from '../../src/util/duration.js'

describe('parseDuration (upstream: time.ParseDuration)', () => {
  const cases: Array<{
    name: string
    given: string
    options?: {bareSeconds: boolean}
    want: number | undefined
  }> = [
    {name: 'seconds', given: '10s', want: 10_000},
    {name: 'minutes and seconds', given: '1m30s', want: 90_000},
    {name: 'a fraction of an hour', given: '1.5h', want: 5_400_000},
    {name: 'milliseconds', given: '500ms', want: 500},
    {name: 'a bare zero', given: '0', want: 0},
    {name: 'microseconds', given: '1500us', want: 1.5},
    {name: 'a bare number is no duration', given: '10', want: undefined},
    {
      name: 'a bare number as seconds (--request-timeout)',
      given: '10',
      options: {bareSeconds: true},
      want: 10_000,
    },
    {name: 'negative', given: '-5s', want: undefined},
    {name: 'a unit alone', given: 's', want: undefined},
    {name: 'an unknown unit', given: '1x', want: undefined},
    {name: 'empty', given: '', want: undefined},
    {name: 'a trailing number', given: '10s5', want: undefined},
  ]
  it.each(cases)('$name: $given', ({given, options, want}) => {
    expect(parseDuration(given, options)).toBe(want)
  })
})

describe('humanDuration (upstream: duration.HumanDuration), the format of every screen', () => {
  const cases: Array<{name: string; given: number; want: string}> = [
    {name: 'under a second', given: 500, want: '0s'},
    {name: 'seconds up to two minutes', given: 119_000, want: '119s'},
    {name: 'minutes and seconds under ten minutes', given: 125_000, want: '2m5s'},
    {name: 'whole minutes under ten minutes', given: 540_000, want: '9m'},
    {name: 'minutes up to three hours', given: 62 * 60_000, want: '62m'},
    {name: 'hours and minutes under eight hours', given: (5 * 60 + 30) * 60_000, want: '5h30m'},
    {name: 'hours up to two days', given: 30 * 3_600_000, want: '30h'},
    {name: 'days and hours under eight days', given: (62 * 60 + 50) * 60_000, want: '2d14h'},
    {name: 'days', given: 40 * 86_400_000, want: '40d'},
    {name: 'a small clock skew reads as now', given: -1500, want: '0s'},
    {name: 'a second in the future reads as now', given: -1000, want: '0s'},
    {name: 'zero', given: 0, want: '0s'},
    {name: '59 seconds', given: 59000, want: '59s'},
    {name: 'two minutes', given: 120000, want: '2m'},
    {name: 'ten minutes drop the seconds', given: 610000, want: '10m'},
    {name: '105 minutes', given: 6300000, want: '105m'},
    {name: 'three hours', given: 10800000, want: '3h'},
    {name: 'eight hours drop the minutes', given: 30300000, want: '8h'},
    {name: '47 hours', given: 169200000, want: '47h'},
    {name: 'two days', given: 172800000, want: '2d'},
    {name: 'two days and five hours', given: 190800000, want: '2d5h'},
    {name: 'years and days', given: 69120000000, want: '2y70d'},
    {name: 'eight years', given: 259200000000, want: '8y'},
    {name: 'further in the future is invalid', given: -5000, want: '<invalid>'},
  ]
  it.each(cases)('$name: $given ms', ({given, want}) => {
    expect(humanDuration(given)).toBe(want)
  })
})

describe('goDuration (upstream: time.Duration.String), for klog lines', () => {
  const cases: Array<{name: string; given: number; want: string}> = [
    {name: 'milliseconds', given: 5, want: '5ms'},
    {name: 'seconds with a fraction', given: 1_500, want: '1.5s'},
    {name: 'minutes and seconds', given: 123_000, want: '2m3s'},
    {name: 'hours and minutes', given: 3_723_000, want: '1h2m'},
  ]
  it.each(cases)('$name: $given ms', ({given, want}) => {
    expect(goDuration(given)).toBe(want)
  })
})
