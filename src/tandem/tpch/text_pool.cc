// TextPool: generates the TPC-H pseudo-text from the specification's grammar and word weights.
#include "tandem/tpch/text_pool.h"

#include <vector>

#include "tandem/tpch/random.h"

namespace tandem::tpch {
namespace {

struct Weighted {
  std::string_view word;
  int weight;
};

// Word lists with weights, clause 4.2.2.13.
constexpr Weighted kNouns[] = {
    {"foxes", 40},         {"ideas", 40},        {"theodolites", 40}, {"pinto beans", 40},
    {"instructions", 40},  {"dependencies", 40}, {"excuses", 40},     {"platelets", 40},
    {"asymptotes", 40},    {"courts", 40},       {"dolphins", 40},    {"multipliers", 1},
    {"sauternes", 1},      {"warthogs", 1},      {"frets", 1},        {"dinos", 1},
    {"attainments", 1},    {"somas", 1},         {"Tiresias", 1},     {"patterns", 1},
    {"forges", 1},         {"braids", 1},        {"frays", 1},        {"warhorses", 1},
    {"dugouts", 1},        {"notornis", 1},      {"epitaphs", 1},     {"pearls", 1},
    {"tithes", 1},         {"waters", 1},        {"orbits", 1},       {"gifts", 1},
    {"sheaves", 1},        {"depths", 1},        {"sentiments", 1},   {"decoys", 1},
    {"realms", 1},         {"pains", 1},         {"grouches", 1},     {"escapades", 1},
    {"hockey players", 1}, {"packages", 40},     {"requests", 40},    {"accounts", 40},
    {"deposits", 40}};
constexpr Weighted kVerbs[] = {
    {"sleep", 20},    {"wake", 20},    {"are", 20},   {"cajole", 20}, {"haggle", 20},
    {"nag", 10},      {"use", 10},     {"boost", 10}, {"affix", 5},   {"detect", 5},
    {"integrate", 5}, {"maintain", 1}, {"nod", 1},    {"was", 1},     {"lose", 1},
    {"sublate", 1},   {"solve", 1},    {"thrash", 1}, {"promise", 1}, {"engage", 1},
    {"hinder", 1},    {"print", 1},    {"x-ray", 1},  {"breach", 1},  {"eat", 1},
    {"grow", 1},      {"impress", 1},  {"mold", 1},   {"poach", 1},   {"serve", 1},
    {"run", 1},       {"dazzle", 1},   {"snooze", 1}, {"doze", 1},    {"unwind", 1},
    {"kindle", 1},    {"play", 1},     {"hang", 1},   {"believe", 1}, {"doubt", 1}};
constexpr Weighted kAdjectives[] = {
    {"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20}, {"furious", 1},
    {"sly", 1},      {"careful", 1},  {"blithe", 1},   {"quick", 1},    {"fluffy", 1},
    {"slow", 1},     {"quiet", 1},    {"ruthless", 1}, {"thin", 1},     {"close", 1},
    {"dogged", 1},   {"daring", 1},   {"brave", 1},    {"stealthy", 1}, {"permanent", 1},
    {"enticing", 1}, {"idle", 1},     {"busy", 1},     {"regular", 50}, {"final", 40},
    {"ironic", 40},  {"even", 30},    {"bold", 20},    {"silent", 10}};
constexpr Weighted kAdverbs[] = {
    {"sometimes", 1},  {"always", 1},     {"never", 1},      {"furiously", 50},  {"slyly", 50},
    {"carefully", 50}, {"blithely", 40},  {"quickly", 30},   {"fluffily", 20},   {"slowly", 1},
    {"quietly", 1},    {"ruthlessly", 1}, {"thinly", 1},     {"closely", 1},     {"doggedly", 1},
    {"daringly", 1},   {"bravely", 1},    {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
    {"idly", 1},       {"busily", 1},     {"regularly", 1},  {"finally", 1},     {"ironically", 1},
    {"evenly", 1},     {"boldly", 1},     {"silently", 1}};
constexpr Weighted kPrepositions[] = {{"about", 50},
                                      {"above", 50},
                                      {"according to", 50},
                                      {"across", 50},
                                      {"after", 50},
                                      {"against", 40},
                                      {"along", 40},
                                      {"alongside of", 30},
                                      {"among", 30},
                                      {"around", 20},
                                      {"at", 10},
                                      {"atop", 1},
                                      {"before", 1},
                                      {"behind", 1},
                                      {"beneath", 1},
                                      {"beside", 1},
                                      {"besides", 1},
                                      {"between", 1},
                                      {"beyond", 1},
                                      {"by", 1},
                                      {"despite", 1},
                                      {"during", 1},
                                      {"except", 1},
                                      {"for", 1},
                                      {"from", 1},
                                      {"in place of", 1},
                                      {"inside", 1},
                                      {"instead of", 1},
                                      {"into", 1},
                                      {"near", 1},
                                      {"of", 1},
                                      {"on", 1},
                                      {"outside", 1},
                                      {"over", 1},
                                      {"past", 1},
                                      {"since", 1},
                                      {"through", 1},
                                      {"throughout", 1},
                                      {"to", 1},
                                      {"toward", 1},
                                      {"under", 1},
                                      {"until", 1},
                                      {"up", 1},
                                      {"upon", 1},
                                      {"without", 1},
                                      {"with", 1},
                                      {"within", 1}};
constexpr Weighted kAuxiliaries[] = {{"do", 1},
                                     {"may", 1},
                                     {"might", 1},
                                     {"shall", 1},
                                     {"will", 1},
                                     {"would", 1},
                                     {"can", 1},
                                     {"could", 1},
                                     {"should", 1},
                                     {"ought to", 1},
                                     {"must", 1},
                                     {"will have to", 1},
                                     {"shall have to", 1},
                                     {"could have to", 1},
                                     {"should have to", 1},
                                     {"must have to", 1},
                                     {"need to", 1},
                                     {"try to", 1}};
constexpr Weighted kTerminators[] = {{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}};

// Grammar productions as symbol strings with weights: N noun phrase, V verb phrase,
// P prepositional phrase, T terminator; n noun, j adjective, ',' comma after the previous word,
// d adverb, v verb, x auxiliary.
constexpr Weighted kSentences[] = {
    {"NVT", 3}, {"NVPT", 3}, {"NVNT", 3}, {"NPVNT", 1}, {"NPVPT", 1}};
constexpr Weighted kNounPhrases[] = {{"n", 10}, {"jn", 20}, {"j,jn", 10}, {"djn", 50}};
constexpr Weighted kVerbPhrases[] = {{"v", 30}, {"xv", 1}, {"vd", 40}, {"xvd", 1}};

// A list expanded by weight, so a pick is one uniform index.
class WeightedPicker {
 public:
  template <size_t N>
  explicit WeightedPicker(const Weighted (&entries)[N]) {
    for (const Weighted& e : entries) {
      for (int i = 0; i < e.weight; ++i) slots_.push_back(e.word);
    }
  }
  std::string_view Pick(uint64_t bits) const {
    return slots_[static_cast<size_t>((static_cast<unsigned __int128>(bits) * slots_.size()) >>
                                      64)];
  }

 private:
  std::vector<std::string_view> slots_;
};

class SentenceWriter {
 public:
  explicit SentenceWriter(std::string* out) : out_(out) {}

  void Sentence() {
    for (char symbol : Choose(sentences_)) {
      switch (symbol) {
        case 'N':
          Expand(Choose(noun_phrases_));
          break;
        case 'V':
          Expand(Choose(verb_phrases_));
          break;
        case 'P':
          Word(Choose(prepositions_));
          Word("the");
          Expand(Choose(noun_phrases_));
          break;
        case 'T':
          out_->append(Choose(terminators_));
          break;
      }
    }
  }

 private:
  void Expand(std::string_view symbols) {
    for (char symbol : symbols) {
      switch (symbol) {
        case 'n':
          Word(Choose(nouns_));
          break;
        case 'j':
          Word(Choose(adjectives_));
          break;
        case 'd':
          Word(Choose(adverbs_));
          break;
        case 'v':
          Word(Choose(verbs_));
          break;
        case 'x':
          Word(Choose(auxiliaries_));
          break;
        case ',':
          out_->push_back(',');
          break;
      }
    }
  }
  void Word(std::string_view word) {
    if (!out_->empty()) out_->push_back(' ');
    out_->append(word);
  }
  std::string_view Choose(const WeightedPicker& picker) {
    return picker.Pick(RandomBits(kPoolStream, counter_++));
  }

  static constexpr uint64_t kPoolStream = 900;
  std::string* out_;
  uint64_t counter_ = 0;
  WeightedPicker nouns_{kNouns}, verbs_{kVerbs}, adjectives_{kAdjectives}, adverbs_{kAdverbs},
      prepositions_{kPrepositions}, auxiliaries_{kAuxiliaries}, terminators_{kTerminators},
      sentences_{kSentences}, noun_phrases_{kNounPhrases}, verb_phrases_{kVerbPhrases};
};

}  // namespace

TextPool::TextPool(int64_t bytes) {
  text_.reserve(static_cast<size_t>(bytes) + 256);
  SentenceWriter writer(&text_);
  while (static_cast<int64_t>(text_.size()) < bytes) writer.Sentence();
}

const TextPool& TextPool::Instance() {
  static const TextPool pool(int64_t{16} << 20);
  return pool;
}

std::string_view TextPool::Text(uint64_t stream, uint64_t row, int min_len, int max_len) const {
  const int64_t length = RandomRange(stream, 2 * row, min_len, max_len);
  const int64_t offset = RandomRange(stream, 2 * row + 1, 0, size() - max_len);
  return std::string_view(text_.data() + offset, static_cast<size_t>(length));
}

}  // namespace tandem::tpch
