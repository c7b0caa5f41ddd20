// Text helpers: the UTF-8 check behind the parser's "not valid UTF-8" error, and the
// byte-order mark a file may start with.
#include "tandem/common/text.h"

#include <gtest/gtest.h>

namespace tandem {
namespace {

TEST(Text, FirstInvalidUtf8FindsEveryIllFormedSequence) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::string::npos);
  EXPECT_EQ(FirstInvalidUtf8("äöü €  𝄞"), std::string::npos);
  EXPECT_EQ(FirstInvalidUtf8("a\xff"), 1u);             // never a UTF-8 byte
  EXPECT_EQ(FirstInvalidUtf8("ab\xc3"), 2u);            // cut short
  EXPECT_EQ(FirstInvalidUtf8("\xc3\x28"), 0u);          // bad continuation
  EXPECT_EQ(FirstInvalidUtf8("\xc0\xaf"), 0u);          // overlong
  EXPECT_EQ(FirstInvalidUtf8("\xe0\x80\xaf"), 0u);      // overlong, three bytes
  EXPECT_EQ(FirstInvalidUtf8("x\xed\xa0\x80"), 1u);     // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("\x80"), 0u);              // a lone continuation
}

TEST(Text, ByteOrderMarkIsDroppedOnlyAtTheStart) {
  EXPECT_EQ(WithoutByteOrderMark("\xef\xbb\xbfSELECT 1"), "SELECT 1");
  EXPECT_EQ(WithoutByteOrderMark("SELECT '\xef\xbb\xbf'"), "SELECT '\xef\xbb\xbf'");
  EXPECT_EQ(WithoutByteOrderMark(""), "");
}

}  // namespace
}  // namespace tandem
