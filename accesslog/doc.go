// Package accesslog reads web servers' access logs as a stream of
// requests, one at a time, in time order, in memory bounded by a window
// of time rather than by the log's length: the reader a replay of a real
// log through the lab's lanes is built on. It imports nothing of
// ratelab's.
//
// # Formats
//
// A Format says how a line is read (ParseFormat makes one):
//
//   - combined: nginx's predefined format and Apache's "combined",
//     $remote_addr - $remote_user [$time_local] "$request" $status
//     $body_bytes_sent "$http_referer" "$http_user_agent";
//   - common: Apache's Common Log Format, the same without the last two;
//   - nginx: any log_format, given as nginx's configuration takes it;
//   - json: JSON Lines, one object a line, with the time under a chosen
//     key; other keys are kept by name, or renamed (FIELD=KEY);
//   - csv: a header row naming the columns, then one row a line, with the
//     time in a chosen column, other columns kept by name or renamed.
//
// A log_format is literal text and variables ($name or ${name}); the
// literal text must be in the line as it is. A variable between two '"'
// runs to the next '"' that no backslash escapes; $time_local and
// $time_iso8601 take their fixed width (26 and 25 bytes) where it holds
// such a time, and $msec before a '.' its digits, '.' and digits; any
// other variable runs to the first byte of the text after it (to the
// line's end for the last), so two variables with nothing between them
// are refused. A value of "-" is
// nginx's and Apache's mark of an empty value: the field is then absent.
// Values are unescaped: \xHH (nginx writes '"', '\' and bytes outside
// printable ASCII so; so does Apache for the last), and Apache's \", \\,
// \n, \r, \t, \b and \v.
//
// Variables read as more than text:
//
//   - $time_local ("10/Oct/2000:13:55:36 -0700", Apache's %t inside its
//     brackets), $time_iso8601 ("2000-10-10T13:55:36-07:00") and $msec
//     (seconds since the epoch with milliseconds, "971211336.125"): the
//     record's time; with several, $msec's, or else the first's (the
//     others are fields like any other);
//   - $status: a status of one to three digits, Record.Status;
//   - $body_bytes_sent and $bytes_sent: whole numbers; $request_time: a
//     decimal ("0.004").
//
// Every other variable, $remote_addr, $remote_user, $request,
// $request_method, $request_uri, $uri, $http_NAME, $arg_NAME and any
// $name at all, is kept as text under its name without the '$'. Record
// derives request_method, request_uri and server_protocol from request,
// uri and args from request_uri, and arg_NAME from args when the log does
// not have them (see Record.Field).
//
// A JSON line is an object; values nested in it are checked and kept as
// their JSON text, and a field named by a dotted path ("user.id") is the
// value inside them (Record.Field), strings are unescaped, null is absent, numbers and
// true and false are kept as written. A CSV field is bare or quoted ("",
// a '"' inside); a quoted field cannot hold a line end; an empty field is
// absent. In both, a field named status must be a status, as $status.
//
// JSON and CSV times (unit=) are RFC 3339 with any fraction of a second
// (rfc3339), or counts since the Unix epoch, as numbers or strings, with
// any fraction, of seconds (s), milliseconds (ms), microseconds (us) or
// nanoseconds (ns). With auto, the default, a value that is a decimal
// number is a count whose unit its size says (below 1e11 seconds, below
// 1e14 milliseconds, below 1e17 microseconds, else nanoseconds: the unit
// of any time from 1973 to 5138), and any other value RFC 3339.
//
// Times are kept as Unix nanoseconds (Record.Time), which int64 holds
// from 1677 to 2262: a date before 1678 or after 2261, or a count past
// int64, is a bad line. JSON nested deeper than 100 levels is a bad line.
//
// # Time resolution
//
// Format.Resolution is the step a format's times come in: a second for
// $time_local (so for combined and common) and $time_iso8601, a
// millisecond for $msec, the unit for JSON and CSV counts of a stated
// unit. For JSON and CSV with unit auto or rfc3339 the first time read
// decides it (Reader.Resolution): a count's unit, or an RFC 3339 time's
// fraction (none a second, up to 3 digits a millisecond, up to 6 a
// microsecond, else a nanosecond).
//
// With Options.Spread SpreadEven, a Reader spreads each second's n
// records evenly across it: the i-th moves to the second plus i/n
// seconds (rounded down to the nanosecond). That needs a resolution of a
// second; with any other, Next returns an error. The Reader holds all of
// a second's records to count them.
//
// # Ordering
//
// Records come out of Reader.Next in time order, records of one time in
// the order of their lines. A line may be earlier than the latest time
// read before it by up to the look-behind (Options.LookBehind, a minute
// by default): the Reader holds records until no later line can precede
// them, which with a look-behind of L is until the latest time read is L
// past them, or the log ends. A line earlier than that is not reordered:
// it is dropped, counted in Stats.OutOfOrder, and Next returns an
// *OrderError naming the line, how far before the latest time it is and
// the line of that time; reading goes on at the next call. NoLookBehind
// demands lines in order.
//
// # Lines
//
// Lines end with "\n" or "\r\n"; a UTF-8 byte order mark before the
// first line is dropped; a last line without a newline is read, and, if
// it does not parse, the reason says it may have been cut short; empty
// lines are skipped and counted (Stats.Empty). Input that starts with
// gzip's magic bytes is decompressed, members one after another read as
// one stream; an input named *.gz that does not is an error. A line
// longer than Options.MaxLineBytes (1 MiB by default) is a bad line.
//
// A line that does not parse is a bad line: counted (Stats.Bad) and
// skipped, the first few (Options.KeepBad, 5 by default) kept as
// *LineError with the line's number and the reason, such as
//
//	access.log:17: status "abc" is not a number
//	access.log:3: expected '[' at column 15
//
// (columns count bytes from 1). With Options.Strict the first bad line is
// an error from Next instead, which ends the reading. When more than half
// of the lines were bad, Reader.Diagnosis says the format is probably
// wrong and, from the first 16 lines it kept, which of the formats Guess
// tries reads more of them.
//
// # Memory
//
// A Reader holds: the records within the look-behind of the latest time
// (each a copy of its line and its fields' bounds, reused once returned),
// with SpreadEven one second's records more, a line buffer as long as
// the longest line (up to MaxLineBytes), the kept bad lines and the first
// 16 lines (up to 4 KiB each). Nothing grows with the log's length. A
// Record's fields point into the Reader's storage and are valid only
// until the next call to Next.
//
// Rules map a Record to a key, a cost and whether it is kept; they
// remember up to 65,536 keys they made, so that a key seen before
// allocates nothing.
//
// A RequestReader is a Reader and Rules in one, for a reader that wants
// only requests: it applies the rules as each line is parsed and holds
// only the Request (time, line, key, cost) while ordering, so that its
// memory within the look-behind is a few dozen bytes a request, not a
// line. It reads in goroutines of its own: one parsing ahead of the
// ordering, or, for nginx's formats (whose lines parse alone), one
// splitting the log into blocks of lines and one a processor parsing them,
// the blocks taken back in file order, so that what it returns is what
// one goroutine reading the lines in turn would return.
package accesslog
