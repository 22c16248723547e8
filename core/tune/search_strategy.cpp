#include "tune/search_strategy.h"

#include <algorithm>
#include <map>

#include "support/error.h"

namespace lathe::tune {
namespace {

// Spaces up to this size are enumerated when random draws keep hitting
// configs already tried.
constexpr double kEnumerableSpace = 2e5;

class RandomStrategy : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

 protected:
  std::vector<topi::Config> propose(int n) override {
    std::vector<topi::Config> out;
    fill_random(out, n);
    return out;
  }
};

class GridStrategy : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

 protected:
  std::vector<topi::Config> propose(int n) override {
    std::vector<topi::Config> out;
    while (static_cast<int>(out.size()) < n && !done_) {
      if (!tried(next_) && space_.valid(next_)) out.push_back(next_);
      advance();
    }
    return out;
  }

 private:
  // Mixed-radix increment, the last knob fastest.
  void advance() {
    for (size_t i = next_.size(); i-- > 0;) {
      if (++next_[i] < static_cast<int>(space_.knobs[i].options.size())) return;
      next_[i] = 0;
    }
    done_ = true;
  }

  topi::Config next_ = topi::Config(space_.knobs.size(), 0);
  bool done_ = false;
};

// Parents drawn with probability proportional to their measured throughput.
class GeneticStrategy : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

 protected:
  std::vector<topi::Config> propose(int n) override {
    std::vector<topi::Config> out;
    std::vector<std::pair<double, topi::Config>> elite = measured_;
    std::sort(elite.begin(), elite.end(), [](auto& a, auto& b) { return a.first > b.first; });
    if (elite.size() > kPopulation) elite.resize(kPopulation);
    double total = 0;
    for (auto& e : elite) total += e.first;
    if (total <= 0) {
      fill_random(out, n);
      return out;
    }
    auto pick = [&]() -> const topi::Config& {
      double r = std::uniform_real_distribution<double>(0, total)(rng_);
      for (auto& e : elite)
        if ((r -= e.first) <= 0) return e.second;
      return elite.back().second;
    };
    for (int attempt = 0; static_cast<int>(out.size()) < n && attempt < 64 * n; ++attempt) {
      topi::Config child = crossover(pick(), pick());
      if (std::uniform_real_distribution<double>(0, 1)(rng_) < kMutationProbability)
        child = mutate(child);
      if (!tried(child) && std::find(out.begin(), out.end(), child) == out.end())
        out.push_back(child);
    }
    fill_random(out, n);
    return out;
  }

 private:
  static constexpr size_t kPopulation = 32;
  static constexpr double kMutationProbability = 0.3;
};

class ModelGuidedStrategy : public SearchStrategy {
 public:
  ModelGuidedStrategy(const topi::SearchSpace& space, uint64_t seed, ConfigScorer scorer)
      : SearchStrategy(space, seed), scorer_(std::move(scorer)) {}

 protected:
  std::vector<topi::Config> propose(int n) override {
    std::vector<topi::Config> out;
    // Until the task has a few measurements the model knows nothing of it.
    if (measured_.size() < kMinMeasured || !scorer_) {
      fill_random(out, n);
      return out;
    }
    std::map<topi::Config, double> scored;
    auto score = [&](std::vector<topi::Config> configs) {
      std::vector<topi::Config> fresh;
      for (topi::Config& c : configs)
        if (!scored.count(c) && std::find(fresh.begin(), fresh.end(), c) == fresh.end())
          fresh.push_back(std::move(c));
      std::vector<double> s = scorer_(fresh);
      for (size_t i = 0; i < fresh.size(); ++i) scored[fresh[i]] = s[i];
    };

    // Initial population: the best measured configs and random ones.
    std::vector<std::pair<double, topi::Config>> best = measured_;
    std::sort(best.begin(), best.end(), [](auto& a, auto& b) { return a.first > b.first; });
    std::vector<topi::Config> population;
    for (size_t i = 0; i < best.size() && i < kElite; ++i) population.push_back(best[i].second);
    for (size_t i = 0; population.size() < kPopulation && i < 4 * kPopulation; ++i)
      population.push_back(random_config());
    score(population);

    for (int generation = 0; generation < kGenerations; ++generation) {
      std::vector<topi::Config> children;
      std::uniform_int_distribution<size_t> any(0, population.size() - 1);
      auto tournament = [&]() -> const topi::Config& {
        const topi::Config& a = population[any(rng_)];
        const topi::Config& b = population[any(rng_)];
        return scored[a] >= scored[b] ? a : b;
      };
      for (size_t i = 0; i < kPopulation; ++i) {
        topi::Config child = std::uniform_real_distribution<double>(0, 1)(rng_) < 0.2
                                 ? crossover(tournament(), tournament())
                                 : mutate(tournament());
        children.push_back(std::move(child));
      }
      score(children);
      // The next population: the best-scored configs seen so far.
      std::vector<std::pair<double, topi::Config>> ranked;
      for (auto& [c, s] : scored) ranked.emplace_back(s, c);
      std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
      population.clear();
      for (size_t i = 0; i < ranked.size() && population.size() < kPopulation; ++i)
        population.push_back(ranked[i].second);
    }

    std::vector<std::pair<double, topi::Config>> ranked;
    for (auto& [c, s] : scored)
      if (!tried(c)) ranked.emplace_back(s, c);
    std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
    const int greedy = std::max(1, static_cast<int>(n * (1 - kEpsilon)));
    for (size_t i = 0; i < ranked.size() && static_cast<int>(out.size()) < greedy; ++i)
      out.push_back(ranked[i].second);
    fill_random(out, n);
    return out;
  }

 private:
  static constexpr size_t kMinMeasured = 8, kElite = 16, kPopulation = 64;
  static constexpr int kGenerations = 3;
  static constexpr double kEpsilon = 0.15;
  ConfigScorer scorer_;
};

}  // namespace

SearchStrategy::SearchStrategy(const topi::SearchSpace& space, uint64_t seed)
    : space_(space), rng_(seed) {}

std::vector<topi::Config> SearchStrategy::next_batch(int n) {
  std::vector<topi::Config> batch = propose(n);
  // Mutations and crossovers may leave a constrained space: such configs are
  // replaced by random points.
  std::erase_if(batch, [&](const topi::Config& c) { return !space_.valid(c); });
  if (static_cast<int>(batch.size()) < n) fill_random(batch, n);
  for (const topi::Config& c : batch) tried_.insert(c);
  return batch;
}

void SearchStrategy::mark_tried(const topi::Config& config) {
  tried_.insert(config);
}

void SearchStrategy::update(const std::vector<topi::Config>& configs,
                            const std::vector<double>& gflops) {
  LATHE_CHECK(configs.size() == gflops.size(), "one throughput per config");
  for (size_t i = 0; i < configs.size(); ++i) {
    tried_.insert(configs[i]);
    measured_.emplace_back(gflops[i], configs[i]);
  }
}

bool SearchStrategy::exhausted() const {
  return static_cast<double>(tried_.size()) >= space_.size();
}

topi::Config SearchStrategy::random_config() {
  topi::Config c(space_.knobs.size());
  // A constrained space: draws until one is a point (the last draw otherwise).
  for (int attempt = 0; attempt < kValidAttempts; ++attempt) {
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = std::uniform_int_distribution<int>(
          0, static_cast<int>(space_.knobs[i].options.size()) - 1)(rng_);
    if (!space_.constraint || space_.valid(c)) break;
  }
  return c;
}

topi::Config SearchStrategy::mutate(const topi::Config& config) {
  topi::Config c = mutate_once(config);
  for (int attempt = 1; space_.constraint && !space_.valid(c) && attempt < kValidAttempts;
       ++attempt)
    c = mutate_once(config);
  return c;
}

topi::Config SearchStrategy::mutate_once(const topi::Config& config) {
  topi::Config c = config;
  if (c.empty()) return c;
  // One knob always, a second one now and then.
  for (int changes = 0; changes < 2; ++changes) {
    size_t k = std::uniform_int_distribution<size_t>(0, c.size() - 1)(rng_);
    int options = static_cast<int>(space_.knobs[k].options.size());
    if (options > 1) {
      int v = std::uniform_int_distribution<int>(0, options - 2)(rng_);
      c[k] = v >= c[k] ? v + 1 : v;
    }
    if (std::uniform_real_distribution<double>(0, 1)(rng_) > 0.3) break;
  }
  return c;
}

topi::Config SearchStrategy::crossover(const topi::Config& a, const topi::Config& b) {
  topi::Config c = a;
  for (int attempt = 0; attempt < kValidAttempts; ++attempt) {
    c = a;
    for (size_t i = 0; i < c.size() && i < b.size(); ++i)
      if (rng_() & 1) c[i] = b[i];
    if (!space_.constraint || space_.valid(c)) break;
  }
  return c;
}

void SearchStrategy::fill_random(std::vector<topi::Config>& out, int n) {
  auto wanted = [&](const topi::Config& c) {
    return !tried(c) && space_.valid(c) && std::find(out.begin(), out.end(), c) == out.end();
  };
  for (int attempt = 0; static_cast<int>(out.size()) < n && attempt < 32 * n; ++attempt) {
    topi::Config c = random_config();
    if (wanted(c)) out.push_back(std::move(c));
  }
  if (static_cast<int>(out.size()) >= n || space_.combinations() > kEnumerableSpace) return;
  // A small, mostly tried space: walk it in a random rotation of index order.
  const int64_t size = static_cast<int64_t>(space_.combinations());
  const int64_t start = std::uniform_int_distribution<int64_t>(0, size - 1)(rng_);
  for (int64_t i = 0; i < size && static_cast<int>(out.size()) < n; ++i) {
    int64_t index = (start + i) % size;
    topi::Config c(space_.knobs.size());
    for (size_t k = c.size(); k-- > 0;) {
      int64_t radix = static_cast<int64_t>(space_.knobs[k].options.size());
      c[k] = static_cast<int>(index % radix);
      index /= radix;
    }
    if (wanted(c)) out.push_back(std::move(c));
  }
}

std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& kind,
                                                     const topi::SearchSpace& space, uint64_t seed,
                                                     ConfigScorer scorer) {
  if (kind == "random") return std::make_unique<RandomStrategy>(space, seed);
  if (kind == "grid") return std::make_unique<GridStrategy>(space, seed);
  if (kind == "ga") return std::make_unique<GeneticStrategy>(space, seed);
  if (kind == "xgb") return std::make_unique<ModelGuidedStrategy>(space, seed, std::move(scorer));
  fail(str("unknown tuner '", kind, "'; use random, grid, ga or xgb"));
}

}  // namespace lathe::tune
