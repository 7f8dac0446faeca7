// printf_oracle prints, for each format on stdin (one per line), how a
// printer built like bpftrace 0.26's (a std::regex grammar for conversions,
// C++ stream manipulators for flags, width and length) formats the int64
// values -42, 255 and 0 with it. It is the reference of TestPrintfAgreement;
// `go test ./output -run TestPrintfAgreement -oracle` rebuilds it with g++
// and rewrites testdata/printf_oracle.txt.gz.
//
// Output, one line per format, tab-separated: the format, the number of
// conversions (a conversion with verb '%' is literal text), the verb of the
// first conversion, then for a format with exactly one integer-printing
// conversion the three results in hex.
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/types.h>

static const std::regex conv(
    // flags (each at most once, in this order), width, precision, length
    // modifiers, then the verb: gr/g and rh/rx/r are tried after the
    // one-letter verbs, which include neither g nor r.
    R"(%(-)?(\+)?( )?(#)?(0)?([0-9]+|\*)?(?:\.([0-9]+|\*))?([jzthlL]*)([%diouxXcspneEfFGaA]|gr|g|rh|rx|r))");

template <typename T, typename C> static void put(std::ostream &o, int64_t v) {
  o << static_cast<T>(static_cast<C>(v));
}

static void as_signed(std::ostream &o, const std::string &len, int64_t v) {
  if (len == "hh") put<long long, signed char>(o, v);
  else if (len == "h") put<long long, short>(o, v);
  else if (len == "l") put<long long, long>(o, v);
  else if (len == "ll") put<long long, long long>(o, v);
  else if (len == "j") put<long long, intmax_t>(o, v);
  else if (len == "z") put<long long, ssize_t>(o, v);
  else if (len == "t") put<long long, ptrdiff_t>(o, v);
  else put<long long, int>(o, v);
}

static void as_unsigned(std::ostream &o, const std::string &len, int64_t v) {
  if (len == "hh") put<unsigned long, unsigned char>(o, v);
  else if (len == "h") put<unsigned long, unsigned short>(o, v);
  else if (len == "l") put<unsigned long, unsigned long>(o, v);
  else if (len == "ll") put<unsigned long, unsigned long long>(o, v);
  else if (len == "j") put<unsigned long, uintmax_t>(o, v);
  else if (len == "z") put<unsigned long, size_t>(o, v);
  else if (len == "t") put<unsigned long, ptrdiff_t>(o, v);
  else put<unsigned long, unsigned int>(o, v);
}

static void as_char(std::ostream &o, const std::string &len, int64_t v) {
  if (len == "hh") put<char, signed char>(o, v);
  else if (len == "h") put<char, short>(o, v);
  else if (len == "l" || len == "ll" || len == "j" || len == "z" || len == "t") put<char, long long>(o, v);
  else put<char, int>(o, v);
}

static std::string format_one(const std::smatch &m, int64_t v) {
  std::stringstream ss;
  ss << (m[1].length() ? std::left : std::right);
  if (m[6].length() && m[6].str() != "*") {
    int w = std::stoi(m[6].str());
    if (w > 0) ss << std::setw(w);
  }
  if (m[5].length()) ss << std::setfill('0');
  std::string verb = m[9].str(), len = m[8].str();
  if (verb == "o") ss << std::oct;
  else if (verb == "x") ss << std::hex << std::nouppercase;
  else if (verb == "X") ss << std::hex << std::uppercase;
  if (m[4].length()) ss << std::showbase;
  if (m[2].length()) ss << std::showpos;
  if (verb == "d" || verb == "i") as_signed(ss, len, v);
  else if (verb == "u" || verb == "o" || verb == "x" || verb == "X") as_unsigned(ss, len, v);
  else if (verb == "c") as_char(ss, len, v);
  else if (verb == "p") ss << reinterpret_cast<void *>(static_cast<unsigned long long>(v));
  else ss << v; // %s of an int64
  return ss.str();
}

static std::string hex(const std::string &s) {
  std::string out;
  char b[3];
  for (unsigned char c : s) {
    snprintf(b, sizeof b, "%02x", c);
    out += b;
  }
  return out;
}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    int n = 0;
    std::smatch first;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), conv); it != std::sregex_iterator(); ++it) {
      if ((*it)[9].str() == "%") continue;
      if (n++ == 0) first = *it;
    }
    std::cout << line << '\t' << n << '\t' << (n ? first[9].str() : "");
    static const std::string ints = "d i u o x X c p s";
    if (n == 1 && first[9].length() <= 1 && ints.find(first[9].str()) != std::string::npos) {
      for (int64_t v : {int64_t(-42), int64_t(255), int64_t(0)}) std::cout << '\t' << hex(format_one(first, v));
    }
    std::cout << '\n';
  }
}
