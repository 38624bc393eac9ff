//! What a `String.format` call with a literal format allocates (`ir::FormatCall`), read from
//! the format's text with `java.util.Formatter`'s syntax and JDK 17's code, each cost measured
//! under the agent on HotSpot 17 (the tests validate them against real runs).
//!
//! `String.format` makes a `Formatter`, its `StringBuilder` (a `byte[16]`), the parsed list (an
//! `ArrayList` and its `Object[10]`, grown by half past ten elements) with one object per piece
//! (a `FixedString` per run of text, a `FormatSpecifier` per specifier), the text appended to the
//! builder (its array grown to `2·old + 2` or to what is needed, so never more than twice the
//! text, one array per growth; inflated to UTF-16 once a char outside Latin-1 comes) and the
//! result, a `String` and its `byte[]` (from UTF-16, first a Latin-1 attempt of the text's
//! length). A specifier written with more than its conversion (`%-8s`, `%1$x`) is parsed by a
//! regular expression: a `Matcher` (an `int[20]`, an `int[6]`, an `IntHashSet[0]`) once per
//! call, and a `Flags` per such specifier. Per conversion:
//! - `%s` of a `String`: nothing more (`%S` its upper-case copy: a `String` and its bytes); the
//!   text is the string's, whose length no parameter gives here: the bytes are ∞, and the
//!   builder's growths at most 27 (an array is shorter than 2^31). With a precision (`%.3s`)
//!   its `substring`, and the text at most the precision's chars.
//! - `%x`, `%X`, `%o` of a `Byte`, `Short`, `Integer` or `Long`: a `StringBuilder` with its
//!   growths, the digits' `String` and bytes (`%X` twice), at most 16 hex or 22 octal digits.
//! - `%c` of a `Character`: its one-char `String` (two bytes in UTF-16).
//! - `%b` of a `Boolean`, `%n`, `%%`: nothing more.
//! - Every specifier: at most two `Flags[]` (`checkBadFlags`' varargs, at most the nine flags).
//!
//! - `%d` of a `Byte`, `Short`, `Integer` or `Long`: `Long.toString`'s digits, at most 3, 5, 10
//!   or 19 and a sign, in a builder of its own, with the flags `-`, `0`, `+`, space and `(`
//!   and a width (zero padding: two strings more).
//! - `%f`, `%e`, `%E` of a `Float` or a `Double`, with a precision and the same flags:
//!   `FormattedFloatingDecimal`'s conversion ([`floating_text`]), its mantissa's builder and the
//!   number's, at most 309 digits before the point.
//!
//! `%d`, `%f` and `%e` read the default locale's `DecimalFormatSymbols`: a new one per
//! `getInstance` ([`number_symbols`]), once per call for the zero digit (the `Formatter` keeps
//! it) and once per `%f` or `%e` for the decimal separator; their first use in a run loads the
//! locale's data, a site of its own charged once per run ([`LOCALE_DATA_OBJECTS`]). The other
//! conversions and flags (`,` reads the locale's `NumberFormat`, `%g`, `%a`, `%t`, `#`) run
//! code not measured here: those calls are ∞ with the specifier in the reason. None of the
//! other conversions bounded reads locale data (the same counts measured in `de_DE` as in
//! `en`).

use membound_front::ir::{FormatArg, FormatCall, FormatOutput, IntegralType};
use membound_front::sizes::ObjectModel;
use membound_jvm::{ClassName, Type};

use super::concat::{array, instance};
use super::{FLOAT_TEXT_CHARS, TextAllocation, TextObject, float_text};

/// What one format call allocates at most.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatShape {
    /// Every object, with its count, and every array's length bounded.
    Bounded(Vec<TextAllocation>),
    /// The text's length is its `String` arguments': the objects bounded, the bytes by those
    /// lengths ([`FormatText`]).
    Text(FormatText),
    /// Not bounded, with why.
    Unbounded(String),
}

/// A format call whose text holds `String` arguments: `allocations` (their count is the
/// call's objects, among them one `byte[8]` for each array whose length the text sets, its
/// header), and the payload of those arrays, `fixed_bytes` plus, per use of a `String`
/// argument, bytes per char of its length, as one array's length (the lowering's column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatText {
    pub allocations: Vec<TextAllocation>,
    pub fixed_bytes: u64,
    /// (argument index, payload bytes per char of its length), one per use.
    pub strings: Vec<(usize, u64)>,
    /// Why the bytes are ∞ where a length is not known.
    pub why_bytes: String,
}

/// The payload bytes per char of a text whose length the arguments set: the builder's
/// growths (at most twice the text each time, so at most four times the text in all, two
/// bytes per char once UTF-16: 8), its inflated copy (4, and 32 more for a short text), the
/// result's Latin-1 attempt (1) and the result's bytes (2).
const TEXT_BYTES_PER_CHAR: u64 = 15;
const TEXT_EXTRA_BYTES: u64 = 32;

/// `%S`'s upper-case copy: two bytes per char more.
const UPPER_COPY_BYTES_PER_CHAR: u64 = 2;

/// The chars of a null argument's text, `null` (which a `String`'s length, a view of a
/// string, does not count).
const NULL_CHARS: u64 = 4;

/// The shape of `call`'s allocations per call.
pub fn format_shape(call: &FormatCall) -> FormatShape {
    format_site(call).shape
}

/// What a format call allocates: per call, and whether it reads the default locale's number
/// symbols, whose first use in a run loads the locale's data ([`LOCALE_DATA_OBJECTS`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatSite {
    pub shape: FormatShape,
    /// A bounded call that reads the locale's number symbols.
    pub locale_data: bool,
}

impl FormatSite {
    fn unbounded(why: String) -> FormatSite {
        FormatSite {
            shape: FormatShape::Unbounded(why),
            locale_data: false,
        }
    }
}

/// The allocations of `call`, read from its format.
pub fn format_site(call: &FormatCall) -> FormatSite {
    let pieces = match parse(&call.format) {
        Ok(pieces) => pieces,
        Err(why) => return FormatSite::unbounded(why),
    };
    let mut cost = Cost {
        stream: call.output == FormatOutput::Stream,
        ..Cost::default()
    };
    let mut next = 0usize;
    let mut previous: Option<usize> = None;
    let mut regex = false;
    for piece in &pieces {
        match piece {
            Piece::Text(text) => {
                if let Err(why) = cost.text(text) {
                    return FormatSite::unbounded(why);
                }
            }
            Piece::Spec(spec) => {
                let arg = match spec.conversion {
                    'n' | '%' => None,
                    _ => {
                        let index = match spec.index {
                            Index::Ordinary => {
                                next += 1;
                                next - 1
                            }
                            Index::Explicit(n) => n - 1,
                            Index::Previous => match previous {
                                Some(index) => index,
                                None => {
                                    return FormatSite::unbounded(
                                        spec.unsupported("it names no previous argument"),
                                    );
                                }
                            },
                        };
                        previous = Some(index);
                        match call.args.get(index) {
                            Some(&arg) => Some(arg),
                            None => {
                                return FormatSite::unbounded(
                                    spec.unsupported("its argument is missing"),
                                );
                            }
                        }
                    }
                };
                regex |= spec.by_regex;
                if let Err(why) = cost.spec(spec, arg, previous) {
                    return FormatSite::unbounded(why);
                }
            }
        }
    }
    let locale_data = cost.reads_locale;
    FormatSite {
        shape: cost.finish(pieces.len() as u64, regex),
        locale_data,
    }
}

/// One piece of a format: a run of text or a specifier.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Spec(Spec),
}

/// A specifier: `%[index$][flags][width][.precision]conversion`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Spec {
    /// Its text, for the reasons.
    text: String,
    index: Index,
    flags: String,
    width: Option<u64>,
    precision: Option<u64>,
    conversion: char,
    /// Written with more than its conversion: parsed by the regular expression.
    by_regex: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Index {
    Ordinary,
    Explicit(usize),
    Previous,
}

impl Spec {
    fn unsupported(&self, why: &str) -> String {
        format!("String.format's specifier {}: {why}", self.text)
    }
}

/// The format's pieces, as `Formatter.parse` finds them; an error names what it cannot parse.
fn parse(format: &str) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = format.chars().collect();
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut at = 0;
    while at < chars.len() {
        if chars[at] != '%' {
            text.push(chars[at]);
            at += 1;
            continue;
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        let (spec, end) = specifier(&chars, at)?;
        pieces.push(Piece::Spec(spec));
        at = end;
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// The specifier starting at `chars[start] == '%'` and where it ends.
fn specifier(chars: &[char], start: usize) -> Result<(Spec, usize), String> {
    let mut at = start + 1;
    let digits = |at: &mut usize| -> Option<u64> {
        let begin = *at;
        while chars.get(*at).is_some_and(char::is_ascii_digit) {
            *at += 1;
        }
        let text: String = chars[begin..*at].iter().collect();
        text.parse().ok()
    };
    let mut index = Index::Ordinary;
    let before_index = at;
    if let Some(n) = digits(&mut at) {
        if chars.get(at) == Some(&'$') && n >= 1 {
            index = Index::Explicit(usize::try_from(n).unwrap_or(usize::MAX));
            at += 1;
        } else {
            at = before_index;
        }
    }
    let mut flags = String::new();
    while let Some(&c) = chars.get(at).filter(|c| "-#+ 0,(<".contains(**c)) {
        flags.push(c);
        at += 1;
    }
    if flags.contains('<') {
        index = Index::Previous;
    }
    let width = digits(&mut at);
    let mut precision = None;
    if chars.get(at) == Some(&'.') {
        at += 1;
        precision = Some(digits(&mut at).ok_or_else(|| unparsable(chars, start, at))?);
    }
    let conversion = *chars.get(at).ok_or_else(|| unparsable(chars, start, at))?;
    let end = at + 1;
    let spec = Spec {
        text: chars[start..end].iter().collect(),
        index,
        flags,
        width,
        precision,
        conversion,
        by_regex: end - start > 2,
    };
    Ok((spec, end))
}

fn unparsable(chars: &[char], start: usize, at: usize) -> String {
    let end = (at + 1).min(chars.len());
    let text: String = chars[start..end].iter().collect();
    format!("String.format's specifier {text}: not a complete specifier")
}

/// The longest text of a line separator (`\n`, or `\r\n`).
const LINE_SEPARATOR_CHARS: u64 = 2;

/// The most growths of a builder's array: from 16, at least doubling, below 2^31.
const MAX_GROWTHS: u64 = 27;

/// A stream's writes: each wraps its chars in a `HeapCharBuffer` (`StreamEncoder.write`), one
/// per write of at most its buffer's 8192 chars.
const CHAR_BUFFER: &str = "java/nio/HeapCharBuffer";
const STREAM_BUFFER_CHARS: u64 = 8192;

/// The longest `Flags[]` a specifier's checks pass (`checkBadFlags`): every flag once.
const FLAGS_ARRAY: u64 = 9;

/// What a call allocates, piece by piece.
#[derive(Default)]
struct Cost {
    /// The text's chars besides its `String` arguments'.
    chars: u64,
    /// The uses of `String` arguments: (argument index, `%S`), with the first specifier's
    /// text for the reason.
    strings: Vec<(usize, bool)>,
    first_string: Option<String>,
    /// Whether the text may hold a char outside Latin-1.
    utf16: bool,
    /// The conversions' own objects.
    own: Vec<TextAllocation>,
    /// The text goes to a stream piece by piece, not to a builder.
    stream: bool,
    /// A conversion reads the default locale's number symbols (`Formatter.zero`, once per
    /// `Formatter`).
    reads_locale: bool,
}

impl Cost {
    fn add_chars(&mut self, n: u64) {
        self.chars += n;
    }

    fn text(&mut self, text: &str) -> Result<(), String> {
        let chars = text.encode_utf16().count() as u64;
        let utf16 = text.chars().any(|c| u32::from(c) > 0xFF);
        self.add_chars(chars);
        self.utf16 |= utf16;
        if self.stream {
            if chars > STREAM_BUFFER_CHARS {
                return Err(format!(
                    "printf's text of {chars} chars: the stream writes it in more than one piece"
                ));
            }
            // Its substring (from UTF-16, first a Latin-1 attempt), then its write.
            self.own.push(instance("java/lang/String", 1));
            self.own
                .push(array(Type::Byte, if utf16 { 2 * chars } else { chars }, 1));
            if utf16 {
                self.own.push(array(Type::Byte, chars, 1));
            }
            self.own.push(instance(CHAR_BUFFER, 1));
        }
        Ok(())
    }

    /// A stream's write of a specifier's text, and of each space padding it to `width`
    /// (`appendJustified` appends them one by one: each a `String` of one char and a write).
    fn stream_writes(&mut self, width: u64, padded: bool) {
        self.own.push(instance(CHAR_BUFFER, 1));
        if padded && width > 0 {
            self.own.push(instance("java/lang/String", width));
            self.own.push(array(Type::Byte, 1, width));
            self.own.push(instance(CHAR_BUFFER, width));
        }
    }

    /// Adds what `spec` makes of `arg`, or says why it is not bounded.
    fn spec(
        &mut self,
        spec: &Spec,
        arg: Option<FormatArg>,
        index: Option<usize>,
    ) -> Result<(), String> {
        let plain = spec.flags.replace('<', "").is_empty() && spec.precision.is_none();
        let justified =
            spec.flags.replace('<', "") == "-" && spec.width.is_some() && spec.precision.is_none();
        let truncated = spec.precision.is_some()
            && (spec.flags.replace('<', "").is_empty()
                || (spec.flags.replace('<', "") == "-" && spec.width.is_some()));
        let unsupported = |why: &str| Err(spec.unsupported(why));
        if spec.by_regex {
            self.own.push(instance("java/util/Formatter$Flags", 1));
        }
        self.own.push(array(
            Type::Ref(ClassName::new("java/util/Formatter$Flags")),
            FLAGS_ARRAY,
            2,
        ));
        let width = spec.width.unwrap_or(0);
        if self.stream {
            self.stream_writes(width, !spec.flags.contains('0'));
        }
        match (spec.conversion, arg) {
            ('n' | '%', _)
                if spec.flags.is_empty() && spec.width.is_none() && spec.precision.is_none() =>
            {
                self.add_chars(if spec.conversion == 'n' {
                    LINE_SEPARATOR_CHARS
                } else {
                    1
                });
            }
            ('s' | 'S', Some(FormatArg::Text)) if self.stream => {
                return unsupported(
                    "a String written to a stream goes out in pieces of the stream's buffer, as many as its length needs",
                );
            }
            ('s', Some(FormatArg::Text)) if truncated => {
                // `substring(0, precision)` when the string is longer (UTF-16 at worst): the
                // text is at most the precision's chars, whatever the string's length.
                let precision = spec.precision.unwrap_or(0);
                self.own.push(instance("java/lang/String", 1));
                self.own.push(array(Type::Byte, 2 * precision, 1));
                self.utf16 = true;
                self.add_chars(width.max(precision));
            }
            ('s' | 'S', Some(FormatArg::Text)) if plain || justified => {
                let upper = spec.conversion == 'S';
                if upper {
                    // The upper-case copy: its bytes are the text's ([`UPPER_COPY_BYTES_PER_CHAR`]).
                    self.own.push(instance("java/lang/String", 1));
                    self.own.push(array(Type::Byte, 8, 1));
                }
                self.utf16 = true;
                self.strings
                    .push((index.expect("a string's argument"), upper));
                self.first_string.get_or_insert_with(|| spec.text.clone());
                self.add_chars(width);
            }
            ('b', Some(FormatArg::Boolean)) if plain || justified => self.add_chars(width.max(5)),
            ('c', Some(FormatArg::Char)) if plain || justified => {
                self.own.push(instance("java/lang/String", 1));
                self.own.push(array(Type::Byte, 2, 1));
                self.utf16 = true;
                // A null Character is written `null`.
                self.add_chars(width.max(NULL_CHARS));
            }
            ('x' | 'X' | 'o', Some(FormatArg::Integral(ty)))
                if number_flags(spec, RADIX_FLAGS, false) =>
            {
                let digits = integral_digits(spec.conversion, ty);
                // `#` writes `0x` (or `0`) first; `0` pads with zeros appended one by one.
                let prefix = match (spec.flags.contains('#'), spec.conversion) {
                    (false, _) => 0,
                    (true, 'o') => 1,
                    (true, _) => 2,
                };
                let built = (prefix + digits).max(width);
                self.own.push(instance("java/lang/String", 1));
                self.own.push(array(Type::Byte, digits, 1));
                if spec.conversion == 'X' {
                    self.own.push(instance("java/lang/String", 1));
                    self.own.push(array(Type::Byte, digits, 1));
                }
                self.number_builder(built);
            }
            ('d', Some(FormatArg::Integral(ty))) if number_flags(spec, SIGN_FLAGS, false) => {
                // `Long.toString`'s digits (and sign), in the builder with the sign flags'
                // chars; a `(` writes a closing one too.
                let text = 1 + decimal_digits(ty);
                self.own.push(instance("java/lang/String", 1));
                self.own.push(array(Type::Byte, text, 1));
                self.localized(spec, text);
            }
            ('d', Some(FormatArg::Integral(_))) => {
                return unsupported(
                    "the flags , and # of %d are not analyzed (`,` reads the locale's number format, whose first use loads more of its data)",
                );
            }
            ('f' | 'e' | 'E', Some(FormatArg::Floating))
                if number_flags(spec, SIGN_FLAGS, true) =>
            {
                self.floating(spec);
            }
            ('f' | 'e' | 'E', Some(FormatArg::Floating)) => {
                return unsupported(
                    "the flags , and # of a float's or a double's text are not analyzed (`,` reads the locale's number format, whose first use loads more of its data)",
                );
            }
            (_, Some(FormatArg::Floating)) => {
                return unsupported(
                    "this conversion of a float or a double is not analyzed (only %f and %e are)",
                );
            }
            (conversion, _) if !"nsSbcxXo%".contains(conversion) => {
                return unsupported("this conversion is not analyzed");
            }
            _ => {
                return unsupported(
                    "this conversion of this argument type, with these flags, is not analyzed",
                );
            }
        }
        Ok(())
    }

    /// `localizedMagnitude`'s text of a number of at most `digits` chars (its sign included)
    /// in the number's builder: the sign flags' chars (a `(` writes a closing one too), zero
    /// padding (`String.valueOf(zero).repeat(width - length)`, inserted in front) and the
    /// locale's zero digit, read once per `Formatter`.
    fn localized(&mut self, spec: &Spec, digits: u64) {
        let width = spec.width.unwrap_or(0);
        let parenthesis = u64::from(spec.flags.contains('('));
        let built = (digits + parenthesis).max(width + parenthesis);
        if spec.flags.contains('0') {
            self.own.push(instance("java/lang/String", 2));
            self.own.push(array(Type::Byte, 1, 1));
            self.own.push(array(Type::Byte, width, 1));
        }
        self.reads_locale = true;
        self.number_builder(built);
    }

    /// `%f` or `%e` of a `Float` or a `Double` (see [`floating_text`]).
    fn floating(&mut self, spec: &Spec) {
        let precision = spec.precision.unwrap_or(DEFAULT_PRECISION);
        let scientific = spec.conversion != 'f';
        let (mantissa, text) = if scientific {
            // `-d.ddde+ddd`.
            (precision + 3, 4 + precision + EXPONENT_CHARS)
        } else {
            (
                MAX_INTEGER_DIGITS + 3 + precision,
                1 + MAX_INTEGER_DIGITS + 1 + precision,
            )
        };
        self.own.extend(floating_text(mantissa, scientific));
        // The mantissa's builder, its zeros appended up to the precision.
        self.own.push(instance("java/lang/StringBuilder", 1));
        self.own.push(array(Type::Byte, 16, 1));
        self.own.extend(growths(text, 1));
        // The decimal separator: the locale's symbols again, for every one.
        self.own.extend(number_symbols());
        self.localized(spec, text);
    }

    /// A number's own builder (`print(long)`'s `StringBuilder`) holding `built` chars, with
    /// its growths, appended to the text; on a stream, made a `String` to be written.
    fn number_builder(&mut self, built: u64) {
        self.own.push(instance("java/lang/StringBuilder", 1));
        self.own.push(array(Type::Byte, 16, 1));
        self.own.extend(growths(built, 1));
        // A null box is written `null`, longer than a byte's two hex digits.
        self.add_chars(built.max(NULL_CHARS));
        if self.stream {
            // The builder's text, made a String for the stream.
            self.own.push(instance("java/lang/String", 1));
            self.own.push(array(Type::Byte, built, 1));
        }
    }

    /// The call's allocations with `elements` pieces parsed, `regex` when a specifier needed
    /// the regular expression.
    fn finish(self, elements: u64, regex: bool) -> FormatShape {
        let mut all = vec![
            instance("java/util/Formatter", 1),
            instance("java/util/ArrayList", 1),
            instance("java/util/Formatter$FormatSpecifier", elements),
        ];
        all.extend(list_arrays(elements));
        if regex {
            all.push(instance("java/util/regex/Matcher", 1));
            all.push(array(Type::Int, 20, 1));
            all.push(array(Type::Int, 6, 1));
            all.push(array(
                Type::Ref(ClassName::new("java/util/regex/IntHashSet")),
                0,
                1,
            ));
        }
        all.extend(self.own);
        if self.reads_locale {
            all.extend(number_symbols());
        }
        if self.stream {
            // The stream's Formatter, made at its first printf: no builder, no result.
            return FormatShape::Bounded(all);
        }
        // The builder and its first array, the result.
        all.push(instance("java/lang/StringBuilder", 1));
        all.push(array(Type::Byte, 16, 1));
        all.push(instance("java/lang/String", 1));
        if self.strings.is_empty() {
            let width = if self.utf16 { 2 } else { 1 };
            all.extend(growths(self.chars, width));
            if self.utf16 {
                // The inflated copy, then the result's Latin-1 attempt.
                all.push(array(Type::Byte, 4 * self.chars.max(8), 1));
                all.push(array(Type::Byte, self.chars, 1));
            }
            all.push(array(Type::Byte, width * self.chars, 1));
            return FormatShape::Bounded(all);
        }
        // The growths, the inflated copy, the Latin-1 attempt and the result's bytes: their
        // headers here, their payload by the text's length.
        all.push(array(Type::Byte, 8, MAX_GROWTHS + 3));
        let fixed_chars = self.chars + NULL_CHARS * self.strings.len() as u64;
        let uppers = self.strings.iter().filter(|(_, upper)| *upper).count() as u64;
        FormatShape::Text(FormatText {
            allocations: all,
            fixed_bytes: TEXT_BYTES_PER_CHAR * fixed_chars
                + TEXT_EXTRA_BYTES
                + UPPER_COPY_BYTES_PER_CHAR * NULL_CHARS * uppers,
            strings: self
                .strings
                .iter()
                .map(|&(index, upper)| {
                    let copy = if upper { UPPER_COPY_BYTES_PER_CHAR } else { 0 };
                    (index, TEXT_BYTES_PER_CHAR + copy)
                })
                .collect(),
            why_bytes: format!(
                "String.format's specifier {} of a String: its length is not bounded by the parameters",
                self.first_string.unwrap_or_default()
            ),
        })
    }
}

/// The flags of `%d`, `%f` and `%e` analyzed here: `-`, `0`, `+`, space and `(`. The group flag
/// `,` reads the locale's `NumberFormat`, not measured, and `#` is not analyzed.
const SIGN_FLAGS: &str = "-0+ (";

/// The flags of `%x` and `%o`: `-`, `#` and `0` (`Formatter` throws for the sign flags).
const RADIX_FLAGS: &str = "-#0";

/// Whether a number's specifier with these flags, this width and this precision is bounded
/// here: flags among `allowed` (and `<`), each once, in a combination `Formatter` accepts (it
/// throws for the others: `-` or `0` without a width, `+` with a space, `-` with `0`), and a
/// precision only for a `float` or a `double`.
fn number_flags(spec: &Spec, allowed: &str, floating: bool) -> bool {
    let flags: Vec<char> = spec.flags.chars().filter(|&c| c != '<').collect();
    let has = |flag: char| flags.contains(&flag);
    let distinct = flags
        .iter()
        .enumerate()
        .all(|(at, flag)| !flags[..at].contains(flag));
    (floating || spec.precision.is_none())
        && distinct
        && flags.iter().all(|&flag| allowed.contains(flag))
        && (spec.width.is_some() || !(has('-') || has('0')))
        && !(has('+') && has(' '))
        && !(has('-') && has('0'))
}

/// `%f`'s and `%e`'s digits after the point when the specifier gives no precision.
const DEFAULT_PRECISION: u64 = 6;

/// The most digits of a `double`'s integer part (`Double.MAX_VALUE` is about 1.8e308).
const MAX_INTEGER_DIGITS: u64 = 309;

/// The chars of `%e`'s exponent after the `e`: its sign and at most three digits.
const EXPONENT_CHARS: u64 = 4;

/// What `FormattedFloatingDecimal.valueOf` makes of a `double`, read from JDK 17's code and
/// checked under the agent: `FloatingDecimal`'s conversion into its thread's buffer
/// ([`float_text`] without the `String` it makes there), the `FormattedFloatingDecimal`, its
/// thread's `char[20]` buffer and `ThreadLocalMap` entry (made at the thread's first use,
/// charged to every one), its mantissa (`create`: one `char[]` of at most `mantissa` chars,
/// the integer part's at most 309 digits, the point and at most 17 more digits for `%f`, for
/// `%e` a digit, the point and the precision's) and for `%e` its exponent (`char[4]` at most:
/// a sign and three digits, or zero's `{'+', '0', '0'}`).
fn floating_text(mantissa: u64, scientific: bool) -> Vec<TextAllocation> {
    let mut made: Vec<TextAllocation> = float_text()
        .into_iter()
        .filter(|made| {
            !matches!(made.object, TextObject::Instance("java/lang/String"))
                && made.object
                    != (TextObject::Array {
                        element: Type::Byte,
                        length: FLOAT_TEXT_CHARS,
                    })
        })
        .collect();
    made.push(instance("jdk/internal/math/FormattedFloatingDecimal", 1));
    made.push(array(Type::Char, 20, 1));
    made.push(instance("java/lang/ThreadLocal$ThreadLocalMap$Entry", 1));
    made.push(array(Type::Char, mantissa, 1));
    if scientific {
        made.push(array(Type::Char, EXPONENT_CHARS, 1));
    }
    made
}

/// The most decimal digits of a value of this type (its sign aside): `-128`, `-32768`,
/// `-2147483648`, `-9223372036854775808`.
fn decimal_digits(ty: IntegralType) -> u64 {
    match ty {
        IntegralType::Byte => 3,
        IntegralType::Short => 5,
        IntegralType::Int => 10,
        IntegralType::Long => 19,
    }
}

/// What reading the default locale's number symbols makes per `Formatter` once they are
/// loaded (`DecimalFormatSymbols.getInstance`: a new `DecimalFormatSymbols`, whose
/// `initialize` runs `findNonFormatChar`'s stream over three of its strings, two Latin-1 and
/// one UTF-16, the last boxing a char outside the `Integer` cache), measured under the agent:
/// 20 objects, 776 bytes, in `en` as in `de`, `es`, `fr`, `hi`, `ja`, `ru`, `th` and `zh`.
fn number_symbols() -> Vec<TextAllocation> {
    vec![
        instance("java/text/DecimalFormatSymbols", 1),
        instance("java/lang/StringLatin1$CharsSpliterator", 2),
        instance("java/lang/StringUTF16$CharsSpliterator", 1),
        instance("java/util/stream/IntPipeline$Head", 3),
        instance("java/util/stream/IntPipeline$10", 3),
        instance("java/util/stream/IntPipeline$10$1", 3),
        instance("java/util/stream/FindOps$FindSink$OfInt", 3),
        instance("java/util/OptionalInt", 3),
        instance("java/lang/Integer", 1),
    ]
}

/// What the first use of the default locale's number symbols in a run loads besides
/// [`number_symbols`] (the locale provider adapters, the CLDR data's resource bundles, their
/// caches, the classes' module readers), at most once per run: the largest measured under the
/// agent in a fresh JVM among the locales `en` (4095 objects, 147520 bytes), `de`, `es`, `fr`,
/// `hi`, `ja`, `ru`, `th` and `zh` (`zh_CN`: 4682 objects, 170792 bytes with compressed
/// references, `hotspot-coops`).
pub const LOCALE_DATA_OBJECTS: u64 = 4682;
const LOCALE_DATA_COOPS_BYTES: u64 = 170_792;

/// [`LOCALE_DATA_OBJECTS`]' bytes under `model`: measured with compressed references; without
/// them an object is at most twice as large (its references double, its header and the rest
/// stay), with compact headers no larger, and in `count` an instance counts 1 and an array
/// its cells, no more than its bytes.
pub fn locale_data_bytes(model: ObjectModel) -> u64 {
    match model {
        ObjectModel::HotspotNocoops => 2 * LOCALE_DATA_COOPS_BYTES,
        ObjectModel::HotspotCoops | ObjectModel::HotspotCompact | ObjectModel::Count => {
            LOCALE_DATA_COOPS_BYTES
        }
    }
}

/// The most digits a conversion writes for a value of this type (a negative one as its
/// unsigned bits).
fn integral_digits(conversion: char, ty: IntegralType) -> u64 {
    let bits: u64 = match ty {
        IntegralType::Byte => 8,
        IntegralType::Short => 16,
        IntegralType::Int => 32,
        IntegralType::Long => 64,
    };
    match conversion {
        'o' => bits.div_ceil(3),
        _ => bits / 4,
    }
}

/// The arrays a builder starting at 16 chars makes to hold `chars` chars, `width` bytes each:
/// one per growth, each at least `2·old + 2` and at most twice the text.
fn growths(chars: u64, width: u64) -> Vec<TextAllocation> {
    let mut count = 0;
    let mut capacity: u64 = 16;
    while capacity < chars {
        count += 1;
        capacity = 2 * capacity + 2;
    }
    if count == 0 {
        return Vec::new();
    }
    vec![array(Type::Byte, 2 * chars * width, count)]
}

/// The parsed list's arrays: an `Object[10]` at the first piece, then one half longer per
/// growth.
fn list_arrays(elements: u64) -> Vec<TextAllocation> {
    let mut arrays = vec![array(Type::Ref(ClassName::object()), 10, 1)];
    let mut capacity: u64 = 10;
    while capacity < elements {
        capacity += capacity / 2;
        arrays.push(array(Type::Ref(ClassName::object()), capacity, 1));
    }
    arrays
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(format: &str, args: &[FormatArg]) -> FormatCall {
        FormatCall {
            output: FormatOutput::Text,
            format: format.into(),
            args: args.to_vec(),
            operands: args.iter().map(|_| None).collect(),
        }
    }

    fn objects(shape: &FormatShape) -> u64 {
        let allocations = match shape {
            FormatShape::Bounded(allocations) => allocations,
            FormatShape::Text(text) => &text.allocations,
            FormatShape::Unbounded(why) => panic!("unbounded: {why}"),
        };
        allocations.iter().map(|a| a.count).sum()
    }

    #[test]
    fn the_parser_finds_pieces_indices_flags_and_widths() {
        let pieces = parse("a%1$-8x%<s%%%n").expect("parses");
        let specs: Vec<&Spec> = pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Spec(spec) => Some(spec),
                Piece::Text(_) => None,
            })
            .collect();
        assert_eq!(pieces[0], Piece::Text("a".to_string()));
        assert_eq!(specs.len(), 4);
        assert_eq!(
            (specs[0].index, specs[0].flags.as_str(), specs[0].width),
            (Index::Explicit(1), "-", Some(8))
        );
        assert!(specs[0].by_regex);
        assert_eq!(specs[1].index, Index::Previous);
        assert_eq!((specs[2].conversion, specs[2].by_regex), ('%', false));
        assert_eq!(specs[3].conversion, 'n');
        assert!(parse("50%").unwrap_err().contains("specifier %"));
        assert!(
            parse("%.")
                .unwrap_err()
                .contains("not a complete specifier")
        );
    }

    #[test]
    fn literal_text_costs_the_formatter_its_list_and_the_result() {
        // Formatter, builder, byte[16], list, Object[10], one piece, the result and its bytes.
        assert_eq!(objects(&format_shape(&call("hello", &[]))), 8);
        // Eleven pieces grow the list once (an Object[15]), two Flags[] each, and their 22
        // chars (two per line separator) grow the builder once.
        let eleven = "%n".repeat(11);
        assert_eq!(
            objects(&format_shape(&call(&eleven, &[]))),
            8 + 10 + 1 + 11 * 2 + 1
        );
    }

    #[test]
    fn conversions_add_their_measured_objects() {
        let int = FormatArg::Integral(IntegralType::Int);
        // %x: two Flags[], a builder with its byte[16], the digits' String and byte[].
        assert_eq!(objects(&format_shape(&call("%x", &[int]))), 8 + 6);
        // %X upper-cases the digits: one String and byte[] more.
        assert_eq!(objects(&format_shape(&call("%X", &[int]))), 8 + 8);
        // A width takes the regular expression (a Matcher, two int[], an IntHashSet[]) and a
        // Flags.
        assert_eq!(objects(&format_shape(&call("%8x", &[int]))), 8 + 6 + 5);
        // %c of a Character: its String and byte[]; the text may be UTF-16: the inflated
        // copy and the result's Latin-1 attempt.
        assert_eq!(
            objects(&format_shape(&call("%c", &[FormatArg::Char]))),
            8 + 2 + 2 + 2
        );
    }

    #[test]
    fn decimals_read_the_locale_number_symbols_once_per_call() {
        let int = FormatArg::Integral(IntegralType::Int);
        // Two Flags[], the number's builder and byte[16], its digits' String and byte[], and
        // the DecimalFormatSymbols with what its initialization makes (20).
        let site = format_site(&call("%d", &[int]));
        assert!(site.locale_data);
        assert_eq!(objects(&site.shape), 8 + 6 + 20);
        // The Formatter reads the symbols once: a second %d adds its own objects only (and
        // its up to 11 chars grow the result's builder once).
        assert_eq!(
            objects(&format_shape(&call("%d%d", &[int; 2]))),
            9 + 12 + 20 + 1
        );
        // Zero padding: the regular expression and a Flags (5), the zero's String and the
        // repeated zeros' (4), the number's builder and the result's grown twice each for 40
        // chars (16, 34, 70).
        assert_eq!(
            objects(&format_shape(&call("%040d", &[int]))),
            8 + 6 + 20 + 5 + 4 + 2 + 2
        );
        assert!(!format_site(&call("%x", &[int])).locale_data);
    }

    #[test]
    fn floats_charge_their_conversion_mantissa_and_symbols_twice() {
        let site = format_site(&call("%.40e", &[FormatArg::Floating]));
        assert!(site.locale_data);
        let FormatShape::Bounded(allocations) = site.shape else {
            panic!("bounded: {:?}", site.shape);
        };
        let made = |object: TextObject| -> u64 {
            allocations
                .iter()
                .filter(|a| a.object == object)
                .map(|a| a.count)
                .sum()
        };
        // A digit, the point and the precision's digits, and a negative's sign; the exponent.
        let chars = |length| TextObject::Array {
            element: Type::Char,
            length,
        };
        assert_eq!(made(chars(43)), 1);
        assert_eq!(made(chars(EXPONENT_CHARS)), 1);
        // The zero digit once per call, the decimal separator once per conversion.
        let symbols = TextObject::Instance("java/text/DecimalFormatSymbols");
        assert_eq!(made(symbols.clone()), 2);
        // dtoa's big-integer path, as for Double.toString.
        assert_eq!(
            made(TextObject::Instance("jdk/internal/math/FDBigInteger")),
            26
        );
        // %f's mantissa holds the integer part's 309 digits.
        let FormatShape::Bounded(fixed) = format_shape(&call("%f", &[FormatArg::Floating])) else {
            panic!("bounded");
        };
        assert!(fixed.iter().any(|a| a.object == chars(312 + 6)));
    }

    #[test]
    fn strings_leave_the_text_to_their_lengths() {
        let FormatShape::Text(text) = format_shape(&call("%s=%S", &[FormatArg::Text; 2])) else {
            panic!("a text shape");
        };
        assert_eq!(text.strings, vec![(0, 15), (1, 17)]);
        // One "=" and four chars per string for a null one, at 15 bytes each, 32 more, and
        // the upper-case copy of a null's four chars.
        assert_eq!(text.fixed_bytes, 15 * (1 + 8) + 32 + 2 * 4);
    }

    #[test]
    fn what_is_not_measured_is_unbounded_with_the_specifier() {
        let int = FormatArg::Integral(IntegralType::Int);
        let why = |format: &str, args: &[FormatArg]| match format_shape(&call(format, args)) {
            FormatShape::Unbounded(why) => why,
            shape => panic!("{format} bounded: {shape:?}"),
        };
        assert!(why("%,d", &[int]).contains("specifier %,d"));
        assert!(why("%-d", &[int]).contains("specifier %-d"));
        assert!(why("%+ d", &[int]).contains("specifier %+ d"));
        assert!(why("%g", &[FormatArg::Floating]).contains("specifier %g"));
        assert!(why("%,.2f", &[FormatArg::Floating]).contains("specifier %,.2f"));
        assert!(why("%.2d", &[int]).contains("specifier %.2d"));
        assert!(why("%tY", &[int]).contains("specifier %t"));
        assert!(why("%s", &[int]).contains("specifier %s"));
        assert!(why("%+x", &[int]).contains("specifier %+x"));
        assert!(why("%#0x", &[int]).contains("specifier %#0x"));
        assert!(why("%x %x", &[int]).contains("its argument is missing"));
        assert!(why("%<x", &[int]).contains("no previous argument"));
    }
}
