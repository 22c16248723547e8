// NumPy .npy parsing/serialization and .npz (zip) reading/writing via libarchive.
#include "support/npz.h"

#include <archive.h>
#include <archive_entry.h>

#include <bit>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <string_view>

#include "support/error.h"

namespace lathe {
namespace {

// .npy data is little-endian and is handed out as raw bytes, so native ('=')
// descrs and the data itself are only right on a little-endian host.
static_assert(std::endian::native == std::endian::little, "npz support assumes little-endian");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;  // NumPy aligns the data start to 64 bytes

// A reader of the Python dict literal in an .npy header, which NumPy writes as
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 10), }. Only the few
// literal forms that NumPy emits are accepted.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& where) : s_(text), where_(where) {}

  void parse(NpyArray& a) {
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() != '\'' && peek() != '"') error("structured (record) dtypes are not supported");
        a.descr = parse_string();
        has_descr = true;
      } else if (key == "fortran_order") {
        const std::string word = parse_word();
        if (word == "True")
          fail(str(where_, ": Fortran-order arrays are not supported; save a C-order array"));
        if (word != "False") error(str("fortran_order is '", word, "', expected True or False"));
        has_order = true;
      } else if (key == "shape") {
        a.shape = parse_tuple();
        has_shape = true;
      } else {
        error(str("unexpected key '", key, "'"));
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      if (peek() != '}') error("expected ',' or '}'");
    }
    ++pos_;
    skip_space();
    if (pos_ != s_.size()) error("trailing characters after the dictionary");
    if (!has_descr || !has_order || !has_shape)
      error("the dictionary needs the keys 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    // Quote the header without its padding, which NumPy ends with spaces and '\n'.
    const size_t end = s_.find_last_not_of(" \n");
    fail(str(where_, ": malformed .npy header at character ", pos_, ": ", what, " in \"",
             s_.substr(0, end == std::string::npos ? 0 : end + 1), "\""));
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) error(str("expected '", c, "'"));
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') error("expected a quoted string");
    const size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\') error("escapes in strings are not supported");
      ++pos_;
    }
    if (pos_ >= s_.size()) error("unterminated string");
    return s_.substr(start, pos_++ - start);
  }
  std::string parse_word() {
    skip_space();
    const size_t start = pos_;
    while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  int64_t parse_int() {
    skip_space();
    if (!std::isdigit(static_cast<unsigned char>(peek()))) error("expected a non-negative integer");
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const int digit = s_[pos_++] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) error("dimension too large");
      v = v * 10 + digit;
    }
    if (peek() == 'L') ++pos_;  // Python 2 longs, in files NumPy wrote under Python 2
    return v;
  }
  std::vector<int64_t> parse_tuple() {
    std::vector<int64_t> dims;
    expect('(');
    skip_space();
    while (peek() != ')') {
      dims.push_back(parse_int());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != ')') {
        error("expected ',' or ')' in the shape");
      }
    }
    ++pos_;
    return dims;
  }

  const std::string& s_;
  const std::string& where_;
  size_t pos_ = 0;
};

uint32_t read_le(const std::string& bytes, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= uint32_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

// Element count times item size, or an error when it overflows.
size_t data_size(const std::vector<int64_t>& shape, size_t itemsize, const std::string& where) {
  uint64_t total = itemsize;
  for (int64_t d : shape) {
    if (d < 0) fail(str(where, ": negative dimension ", d));
    if (d != 0 && total > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d))
      fail(str(where, ": shape too large"));
    total *= static_cast<uint64_t>(d);
  }
  return static_cast<size_t>(total);
}

std::string shape_repr(const std::vector<int64_t>& shape) {
  // Python's tuple repr: "()", "(3,)", "(1, 10)".
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string strip_npy(const std::string& name) {
  constexpr std::string_view ext = ".npy";
  if (name.size() >= ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
    return name.substr(0, name.size() - ext.size());
  return name;
}

using ReadArchive = std::unique_ptr<archive, decltype(&archive_read_free)>;
using WriteArchive = std::unique_ptr<archive, decltype(&archive_write_free)>;

std::string archive_message(archive* a) {
  const char* m = archive_error_string(a);
  return m ? m : "unknown libarchive error";
}

}  // namespace

size_t npy_itemsize(const std::string& descr, const std::string& where) {
  if (descr.empty()) fail(str(where, ": empty dtype descr"));
  size_t i = 0;
  char order = '|';
  if (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=') order = descr[i++];
  if (i >= descr.size()) fail(str(where, ": dtype descr '", descr, "' has no type"));
  const char kind = descr[i++];
  if (kind == 'O') fail(str(where, ": object arrays (dtype '", descr, "') are not supported"));
  size_t count = 0;
  if (i == descr.size()) fail(str(where, ": dtype descr '", descr, "' has no size"));
  for (; i < descr.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(descr[i])) || count > 1'000'000'000)
      fail(str(where, ": unsupported dtype descr '", descr, "'"));
    count = count * 10 + static_cast<size_t>(descr[i] - '0');
  }
  size_t size = 0;
  switch (kind) {
    case 'b':
      size = count == 1 ? 1 : 0;
      break;
    case 'i':
    case 'u':
      size = (count == 1 || count == 2 || count == 4 || count == 8) ? count : 0;
      break;
    case 'f':
      size = (count == 2 || count == 4 || count == 8 || count == 16) ? count : 0;
      break;
    case 'c':
      size = (count == 8 || count == 16 || count == 32) ? count : 0;
      break;
    case 'S':
    case 'a':
    case 'V':
      size = count;
      break;
    case 'U':
      size = 4 * count;
      break;  // UCS-4 code points
    default:
      break;
  }
  if (size == 0) fail(str(where, ": unsupported dtype descr '", descr, "'"));
  // Byte order matters only for multi-byte numbers (strings and void are bytes).
  if (order == '>' && size > 1 && kind != 'S' && kind != 'a' && kind != 'V')
    fail(str(where, ": big-endian dtype '", descr, "' is not supported; save as little-endian"));
  return size;
}

NpyArray parse_npy(const std::string& bytes, const std::string& where) {
  if (bytes.size() < kMagicLen + 4 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    fail(str(where, ": not a .npy file (bad magic)"));
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(str(where, ": unsupported .npy format version ", major, ".", minor));
  // Version 1.0 has a 16-bit header length, 2.0 and 3.0 (UTF-8 header) 32-bit.
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < kMagicLen + 2 + len_bytes) fail(str(where, ": truncated .npy header"));
  const size_t header_len = read_le(bytes, kMagicLen + 2, len_bytes);
  const size_t data_start = kMagicLen + 2 + len_bytes + header_len;
  if (data_start > bytes.size())
    fail(str(where, ": .npy header claims ", header_len, " bytes but the file has only ",
             bytes.size() - (kMagicLen + 2 + len_bytes)));

  NpyArray a;
  const std::string header = bytes.substr(kMagicLen + 2 + len_bytes, header_len);
  HeaderParser(header, where).parse(a);
  const size_t expected = data_size(a.shape, npy_itemsize(a.descr, where), where);
  const size_t got = bytes.size() - data_start;
  if (got != expected)
    fail(str(where, ": array '", a.descr, "' of shape ", shape_repr(a.shape), " needs ", expected,
             " data bytes, the file has ", got));
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  return a;
}

std::string serialize_npy(const NpyArray& a) {
  const std::string where = "serialize_npy";
  const size_t expected = data_size(a.shape, npy_itemsize(a.descr, where), where);
  if (a.data.size() != expected)
    fail(str(where, ": array '", a.descr, "' of shape ", shape_repr(a.shape), " needs ", expected,
             " data bytes, got ", a.data.size()));
  // Keys in sorted order and a trailing ", " as NumPy's header_data_from_array_1_0.
  std::string dict = "{'descr': '" + a.descr +
                     "', 'fortran_order': False, 'shape': " + shape_repr(a.shape) + ", }";
  // As NumPy's _wrap_header: pad with spaces and a final '\n' so that the data
  // starts at a multiple of 64 (always at least one space of padding).
  auto wrap = [&](int major, size_t len_bytes) {
    const size_t hlen = dict.size() + 1;
    const size_t pad = kAlign - (kMagicLen + 2 + len_bytes + hlen) % kAlign;
    const size_t total = hlen + pad;
    std::string out(kMagic, kMagicLen);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
  };
  const bool fits_v1 = dict.size() + 1 + kAlign <= std::numeric_limits<uint16_t>::max();
  std::string out = fits_v1 ? wrap(1, 2) : wrap(2, 4);
  out.append(a.data.begin(), a.data.end());
  return out;
}

std::vector<std::pair<std::string, NpyArray>> read_npz(const std::string& path) {
  ReadArchive a(archive_read_new(), archive_read_free);
  if (!a) fail(str(path, ": cannot allocate a libarchive reader"));
  // Registers both zip readers: on a regular file libarchive picks the seekable
  // one, which trusts the central directory as NumPy's zipfile does (the
  // streaming one can't size stored members written with data descriptors);
  // on a pipe it falls back to streaming.
  archive_read_support_format_zip(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    // libarchive does not recognise a zip with no members, which is just an
    // end-of-central-directory record (np.savez with no arrays writes one).
    char head[4] = {};
    std::ifstream file(path, std::ios::binary);
    if (file.read(head, sizeof head) && std::string_view(head, 4) == std::string_view("PK\5\6", 4))
      return {};
    fail(str(path, ": cannot open as .npz: ", archive_message(a.get())));
  }

  // libarchive falls back to streaming when the end-of-central-directory
  // record is missing, and would accept a truncated archive; NumPy would not.
  {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    const std::streamoff size = file.tellg();
    if (file && size >= 0) {
      const std::streamoff tail = std::min<std::streamoff>(size, 65536 + 22);
      std::string end(static_cast<size_t>(tail), '\0');
      file.seekg(size - tail);
      file.read(end.data(), tail);
      // The record is 22 bytes plus a comment whose length ends it.
      const size_t at = end.rfind(std::string("PK\5\6", 4));
      const bool whole = at != std::string::npos && end.size() - at >= 22 &&
                         at + 22 +
                                 (static_cast<unsigned char>(end[at + 20]) |
                                  static_cast<unsigned char>(end[at + 21]) << 8) ==
                             end.size();
      if (!whole)
        fail(str(path, ": truncated .npz (no complete zip end-of-central-directory record)"));
    }
  }

  std::vector<std::pair<std::string, NpyArray>> arrays;
  std::set<std::string> keys;
  archive_entry* entry = nullptr;
  while (true) {
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
      fail(str(path, ": corrupt .npz: ", archive_message(a.get())));
    const char* raw_name = archive_entry_pathname(entry);
    const std::string name = raw_name ? raw_name : "";
    if (archive_entry_filetype(entry) == AE_IFDIR) continue;
    const std::string where = str(path, ": member '", name, "'");
    std::string bytes;
    char buffer[1 << 16];
    while (true) {
      const la_ssize_t n = archive_read_data(a.get(), buffer, sizeof buffer);
      if (n == 0) break;
      if (n < 0) fail(str(where, ": ", archive_message(a.get())));
      bytes.append(buffer, static_cast<size_t>(n));
    }
    std::string key = strip_npy(name);
    if (!keys.insert(key).second) fail(str(where, ": duplicate array name '", key, "'"));
    arrays.emplace_back(std::move(key), parse_npy(bytes, where));
  }
  return arrays;
}

void write_npz(const std::string& path,
               const std::vector<std::pair<std::string, NpyArray>>& arrays) {
  // Serialize first so that a bad array throws before the file is touched.
  std::vector<std::string> members;
  std::set<std::string> keys;
  for (const auto& [key, array] : arrays) {
    if (key.empty() || !keys.insert(key).second)
      fail(str(path, ": array name '", key, "' is empty or used twice"));
    try {
      members.push_back(serialize_npy(array));
    } catch (const Error& e) {
      fail(str(path, ": array '", key, "': ", e.what()));
    }
  }

  WriteArchive a(archive_write_new(), archive_write_free);
  if (!a) fail(str(path, ": cannot allocate a libarchive writer"));
  auto check = [&](int r, const std::string& what) {
    if (r < ARCHIVE_WARN) {
      const std::string message = archive_message(a.get());
      a.reset();
      std::remove(path.c_str());  // leave no half-written archive behind
      fail(str(path, ": ", what, ": ", message));
    }
  };
  // Stored like np.savez: arrays rarely compress well, and stored is fastest.
  check(archive_write_set_format_zip(a.get()), "cannot select the zip format");
  check(archive_write_zip_set_compression_store(a.get()), "cannot select stored compression");
  check(archive_write_open_filename(a.get(), path.c_str()), "cannot create");
  for (size_t i = 0; i < members.size(); ++i) {
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(),
                                                                        archive_entry_free);
    archive_entry_set_pathname(entry.get(), (arrays[i].first + ".npy").c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(members[i].size()));
    // A fixed timestamp (2000-01-01) keeps the output byte-for-byte reproducible.
    archive_entry_set_mtime(entry.get(), 946684800, 0);
    const std::string what = str("array '", arrays[i].first, "'");
    check(archive_write_header(a.get(), entry.get()), what);
    const la_ssize_t n = archive_write_data(a.get(), members[i].data(), members[i].size());
    check(n < 0 ? static_cast<int>(n) : ARCHIVE_OK, what);
    if (static_cast<size_t>(n) != members[i].size()) check(ARCHIVE_FATAL, what + ": short write");
    check(archive_write_finish_entry(a.get()), what);
  }
  check(archive_write_close(a.get()), "cannot finish the archive");
}

}  // namespace lathe
