// Internal to core/tir/arith: declarative rewrite rules for the simplifier,
// after Halide's IRMatch. A rule reads as the algebra it encodes:
//   {min(min(x, c0), c1), min(x, min(c0, c1))}
//   {(x / c0) / c1, x / (c0 * c1), c0 > 0 && c1 > 0}
// Wildcards x, y, z, w match any expression (a repeated one must match an
// equal expression), c0..c2 match scalar constants, L matches a lane count.
// The replacement and the predicate are built through the simplifier, so
// constant subterms fold and a predicate holds when it simplifies to true
// (which may use the known variable bounds).
#pragma once

#include <array>
#include <initializer_list>
#include <memory>
#include <vector>

#include "te/expr.h"

namespace lathe::arith {

class Simplifier;

namespace rewrite {

using te::Expr;

enum class PatternKind : uint8_t {
  Wild,
  ConstWild,
  Literal,
  Lanes,
  Binary,
  Not,
  Select,
  Ramp,
  Broadcast
};

struct PatternNode;

class Pattern {
 public:
  Pattern() = default;
  Pattern(int literal);  // NOLINT(google-explicit-constructor): `x + 0`
  explicit Pattern(std::shared_ptr<const PatternNode> node) : node_(std::move(node)) {}
  const PatternNode* get() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }

 private:
  std::shared_ptr<const PatternNode> node_;
};

struct PatternNode {
  PatternKind kind = PatternKind::Wild;
  te::ExprKind op = te::ExprKind::Add;  // for Binary
  int slot = 0;                         // for Wild and ConstWild
  int64_t literal = 0;                  // for Literal
  std::vector<Pattern> children;        // Ramp: base, stride, lanes; Broadcast: value, lanes
};

Pattern wild(int slot);
Pattern const_wild(int slot);
Pattern lanes_wild();

inline const Pattern x = wild(0), y = wild(1), z = wild(2), w = wild(3);
inline const Pattern c0 = const_wild(0), c1 = const_wild(1), c2 = const_wild(2);
inline const Pattern L = lanes_wild();

Pattern operator+(const Pattern& a, const Pattern& b);
Pattern operator-(const Pattern& a, const Pattern& b);
Pattern operator*(const Pattern& a, const Pattern& b);
Pattern operator/(const Pattern& a, const Pattern& b);  // floordiv on integers
Pattern operator%(const Pattern& a, const Pattern& b);  // floormod on integers
Pattern operator<(const Pattern& a, const Pattern& b);
Pattern operator<=(const Pattern& a, const Pattern& b);
Pattern operator>(const Pattern& a, const Pattern& b);
Pattern operator>=(const Pattern& a, const Pattern& b);
Pattern operator==(const Pattern& a, const Pattern& b);
Pattern operator!=(const Pattern& a, const Pattern& b);
Pattern operator&&(const Pattern& a, const Pattern& b);
Pattern operator||(const Pattern& a, const Pattern& b);
Pattern operator!(const Pattern& a);
Pattern min(const Pattern& a, const Pattern& b);
Pattern max(const Pattern& a, const Pattern& b);
Pattern select(const Pattern& c, const Pattern& t, const Pattern& f);
Pattern ramp(const Pattern& base, const Pattern& stride, const Pattern& lanes);
Pattern broadcast(const Pattern& value, const Pattern& lanes);

struct Bindings {
  std::array<Expr, 4> wild;
  std::array<Expr, 3> consts;
  int lanes = 0;
};

bool match(const PatternNode* p, const Expr& e, Bindings& b);
// Builds p from the bindings through the simplifier's constructors; a literal
// at the root takes `root_type`, elsewhere the type of its sibling.
Expr build(const PatternNode* p, const Bindings& b, Simplifier& s, te::DataType root_type);

struct Rule {
  Rule(Pattern b, Pattern a, Pattern p = Pattern())
      : before(std::move(b)), after(std::move(a)), predicate(std::move(p)) {}
  Pattern before, after;
  Pattern predicate;  // optional: must simplify to true
};

// Rules tried in order: the first that matches (and whose predicate holds) wins.
class RuleSet {
 public:
  RuleSet(std::initializer_list<Rule> rules) : rules_(rules) {}
  // The rewritten e, or an undefined Expr when no rule applies.
  Expr apply(const Expr& e, Simplifier& s) const;

 private:
  std::vector<Rule> rules_;
};

}  // namespace rewrite
}  // namespace lathe::arith
