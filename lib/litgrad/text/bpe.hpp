#pragma once
/// \file bpe.hpp
/// \brief `BPETokenizer`: byte-level byte-pair encoding, which turns text into integer ids and
/// back, as GPT-2's tokenizer, Hugging Face's `ByteLevelBPETokenizer` and `tiktoken` do.
///
/// **The idea.** Text is bytes (UTF-8 for anything beyond ASCII), and the vocabulary starts
/// with one token per byte value, ids 0 to 255, so every text can be encoded, whatever
/// characters it holds. Training then repeats one step until the vocabulary has the size asked
/// for: count every pair of adjacent tokens in the training text, take the most frequent pair
/// and make it a new token, with the next id, replacing each of its occurrences. Merge k
/// (counting from 0) makes the token `256 + k`. Encoding a new text replays the merges in
/// the order they were learned; decoding concatenates the tokens' bytes.
///
/// **Words first.** Like GPT-2's, the training text and every encoded text are first cut into
/// pieces by pretokenize(), and no merge crosses a piece's edge: a token is never the end of
/// one word and the start of the next. This also makes training fast, since each distinct
/// piece is counted once, with its number of occurrences as a weight.
///
/// **Counting pairs.** A pair's count is the number of its occurrences that a left-to-right
/// replacement would replace: in `aaa` the pair `aa` counts once, not twice, because its two
/// occurrences overlap and only one can be merged. So each merge shortens the training text by
/// exactly the count of the pair it merges. Ties between equal counts go to the pair with the
/// smaller left id, then the smaller right id.
///
/// **Ids.** encode() returns a `std::vector<std::int64_t>`, as `tiktoken`'s `encode` returns a
/// list of ints: sequences differ in length, and a vector is what a reader slices, counts and
/// concatenates before batching. Make a model's input with
/// `tensor(std::vector<double>(ids.begin(), ids.end()), {n}, DType::Int64)`; decode() takes
/// either the vector or a 1-D Int64 tensor (what `argmax` or `multinomial` return).
///
/// **Special tokens.** A special token is a string that stands for one id of its own, which no
/// merge makes: GPT-2's `<|endoftext|>`, which marks where one document ends and the next
/// begins. add_special_token() registers one, with the next id after the merges and the
/// special tokens before it. As in `tiktoken`, encode() refuses a text that holds a special
/// token's string unless the call allows that token, so that text from outside (a user's
/// prompt, a scraped page) never smuggles a document boundary into a model's input; the
/// tokens it allows become their ids, and encode_ordinary() encodes every special string as
/// plain text, byte by byte and merge by merge. decode() of a special id is its string, so
/// `decode(encode(text, special_tokens()))` is `text` for any bytes.
///
/// \code
/// BPETokenizer tokenizer;                      // (trained first, in practice)
/// const std::int64_t eot = tokenizer.add_special_token("<|endoftext|>");  // 256 here
/// std::vector<std::int64_t> ids = tokenizer.encode("one<|endoftext|>two", {"<|endoftext|>"});
/// // ids: 'o', 'n', 'e', eot, 't', 'w', 'o'; encode("one<|endoftext|>two") throws ValueError
/// \endcode
///
/// **The file format** (version 2, or 3 with special tokens), text like nn::save()'s:
///
///     litgrad bpe 2
///     merges 2
///     104 101
///     256 108
///     checksum ea748a497c677633
///     end
///
/// one line per merge, in the order learned, with the ids of the pair's left and right tokens,
/// then the FNV-1a hash of every byte before the checksum line (as a state_dict's), so that a
/// file with one digit changed is refused rather than read as another tokenizer. Version 1,
/// the same without the checksum line, is still read. A tokenizer with special tokens writes
/// version 3, which adds, after the merges, the line `special N` and one line per special
/// token, in id order, with its bytes in hexadecimal (`3c7c656e646f66746578747c3e` for
/// `<|endoftext|>`), so that any bytes, spaces and newlines among them, survive the trip.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief Cuts \p text into the pieces that byte-pair encoding works within, in order; the
/// pieces, concatenated, are \p text.
///
/// Bytes are classed as letters (`a`–`z`, `A`–`Z`, and every byte of 128 or more, so that a
/// UTF-8 character stays inside its word), digits, whitespace, and the rest (punctuation). A
/// piece is a run of letters, of digits, or of punctuation, each with the single space before
/// it if there is one; whitespace that no such run takes is a piece of its own. So
/// `"the cat's 9 lives"` gives `the`, ` cat`, `'`, `s`, ` 9`, ` lives`. GPT-2 cuts text much
/// the same way (with Unicode classes, and contractions such as `'s` kept whole).
std::vector<std::string_view> pretokenize(std::string_view text);

/// \brief What training records about one merge: how often its pair occurred in the training
/// text when it was merged, how many tokens the training text had after it, and how many
/// distinct pieces training rewrote to make it (its work, which is never more than the count).
struct BPEStep {
  std::int64_t count = 0;   ///< the pair's count (its non-overlapping occurrences)
  std::int64_t length = 0;  ///< the training text's length in tokens after the merge
  std::int64_t pieces = 0;  ///< the distinct pieces of pretokenize() that held the pair
};

/// \brief A byte-level byte-pair encoding tokenizer: train(), encode(), decode(), save(), load().
///
/// A new tokenizer has no merges: the 256 byte tokens, one per byte.
///
/// \code
/// BPETokenizer tokenizer;
/// tokenizer.train(text, 1024);                      // 256 bytes and 768 merges
/// std::vector<std::int64_t> ids = tokenizer.encode("a word");
/// std::string back = tokenizer.decode(ids);         // "a word", always
/// tokenizer.save("tokenizer.bpe");
/// \endcode
///
/// encode() remembers the ids of the pieces it has met (up to 2^18 of them, behind a lock), so
/// running text costs about one lookup a word; a tokenizer may encode from several threads at
/// once, as long as none of them trains or loads it.
class BPETokenizer {
 public:
  /// \brief The 256 byte tokens and no merges.
  BPETokenizer();

  /// \brief Learns merges from \p text until the vocabulary has \p vocab_size tokens, replacing
  /// any merges it had. Stops early, with a smaller vocabulary, if no pair is left to merge.
  /// \param text the training text, any bytes
  /// \param vocab_size the number of tokens wanted: 256 bytes and `vocab_size - 256` merges
  /// \param history if given, gets one BPEStep per merge, in order
  /// \throws ValueError when \p vocab_size is below 256, the number of byte tokens, or above
  ///   2^31 - 1; or when the tokenizer has special tokens (train first, then add them, so that
  ///   their ids follow the merges and never move).
  void train(std::string_view text, std::int64_t vocab_size, std::vector<BPEStep>* history = nullptr);

  /// \brief Registers \p text as a special token and returns its id, the next after the merges
  /// and the special tokens already registered (GPT-2's `<|endoftext|>` is 50256, after its
  /// 50,000 merges).
  /// \throws ValueError when \p text is empty or is already a special token.
  std::int64_t add_special_token(const std::string& text);

  /// \brief The special tokens' strings, in id order: the first has id `256 + merges().size()`.
  const std::vector<std::string>& special_tokens() const { return special_; }

  /// \brief Whether \p id is one of the special tokens' ids (false for any other number, in the
  /// vocabulary or not).
  bool is_special(std::int64_t id) const { return id >= first_special() && id < vocab_size(); }

  /// \brief The id of the special token \p text (`tiktoken`'s `encode_single_token`).
  /// \throws ValueError when \p text is not one of special_tokens().
  std::int64_t special_token_id(std::string_view text) const;

  /// \brief The ids of \p text, which must hold no special token's string: encode_ordinary()
  /// of it. \throws ValueError naming the special token and its byte offset when it holds
  /// one, as `tiktoken`'s `encode` does by default.
  std::vector<std::int64_t> encode(std::string_view text) const;

  /// \brief The ids of \p text, in which each occurrence of a special token listed in
  /// \p allowed_special becomes that token's id and the text between is encoded as by
  /// encode_ordinary(). Where two allowed special tokens could start at one byte, the longer
  /// is taken. Pass special_tokens() to allow them all.
  /// \throws ValueError when \p allowed_special lists a string that is not a special token,
  ///   or when \p text holds the string of a special token it does not list (anywhere, even
  ///   inside an allowed one), naming the token and its byte offset.
  std::vector<std::int64_t> encode(std::string_view text, const std::vector<std::string>& allowed_special) const;

  /// \brief The ids of \p text as plain bytes: each piece of pretokenize() starts as its bytes,
  /// and the merges are applied in the order they were learned, each to every occurrence of
  /// its pair, left to right. No special id is ever produced: a special token's string is
  /// encoded like any other. decode() of the result is \p text, for any bytes.
  std::vector<std::int64_t> encode_ordinary(std::string_view text) const;

  /// \brief The bytes of the tokens \p ids, concatenated, a special token's id giving its
  /// string. A sequence cut between the bytes of one character decodes to bytes that are not
  /// valid UTF-8; whole texts never are.
  /// \throws IndexError for an id outside `[0, vocab_size())`.
  std::string decode(const std::vector<std::int64_t>& ids) const;

  /// \brief decode() of a 1-D Int64 tensor of ids.
  /// \throws ValueError for a tensor that is not Int64; ShapeError for one that is not 1-D;
  ///   IndexError for an id out of range.
  std::string decode(const Tensor& ids) const;

  /// \brief The bytes of one token (a special token's string for its id).
  /// \throws IndexError for an id out of range.
  const std::string& token(std::int64_t id) const;

  /// \brief The number of tokens: 256, plus the number of merges, plus the special tokens.
  std::int64_t vocab_size() const { return static_cast<std::int64_t>(tokens_.size()); }

  /// \brief The merges in the order learned: merge k joins the pair (left, right) into the
  /// token `256 + k`.
  const std::vector<std::pair<std::int64_t, std::int64_t>>& merges() const { return merges_; }

  /// \brief The tokenizer made of the first `vocab_size - 256` merges. Training makes the same
  /// merges in the same order whatever size it aims for, so training to \p vocab_size on the
  /// same text gives exactly this.
  /// \throws ValueError when \p vocab_size is below 256 or above vocab_size(), or when the
  ///   tokenizer has special tokens (truncate first, then add them).
  BPETokenizer truncated(std::int64_t vocab_size) const;

  /// \brief Writes the merges and special tokens to \p path (the format above), beside it
  /// first and then renamed into place, so a reader never sees half a file.
  /// \throws ValueError when it cannot write.
  void save(const std::string& path) const;

  /// \brief Reads the merges and special tokens that save() wrote, replacing this tokenizer's
  /// (a version 1 or 2 file has no special tokens, so the tokenizer is left with none). The
  /// file is read and checked whole first: on any error the tokenizer is left as it was.
  /// \throws ValueError naming the file and what is wrong: it cannot be read, is not a litgrad
  ///   bpe file, has another version, is truncated, has a malformed line, names an id that
  ///   does not exist yet where it is used or a pair merged twice, lists a special token that
  ///   is empty or twice, or its checksum is not the hash of its bytes.
  void load(const std::string& path);

 private:
  struct Memo;  // the ids of pieces already encoded, shared by copies with the same merges
  void set_merges(std::vector<std::pair<std::int64_t, std::int64_t>> merges);
  void encode_piece(std::string_view piece, std::vector<std::int32_t>& symbols) const;
  void encode_ordinary(std::string_view text, std::vector<std::int64_t>& ids) const;
  std::size_t special_index(std::string_view text, const char* op) const;  // or ValueError from op
  std::int64_t first_special() const { return 256 + static_cast<std::int64_t>(merges_.size()); }
  std::vector<std::pair<std::int64_t, std::int64_t>> merges_;
  std::vector<std::string> special_;                      // the special tokens, in id order
  std::vector<std::string> tokens_;                       // the bytes of each id, specials last
  std::unordered_map<std::uint64_t, std::int32_t> rank_;  // pair (left << 32 | right) -> merge k
  std::shared_ptr<Memo> memo_;
};

}  // namespace litgrad
