// Tests of the contracts of common/status.h and common/result.h.

#include "common/status.h"

#include <cerrno>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/result.h"

namespace smr {
namespace {

using Code = Status::Code;

struct CodeCase {
  Code code;
  Status (*make)(std::string_view);
  bool (Status::*is)() const;
  int err;
};

const std::vector<CodeCase>& AllErrorCodes() {
  static const std::vector<CodeCase> cases = {
      {Code::kNotFound, &Status::NotFound, &Status::IsNotFound, ENOENT},
      {Code::kCorruption, &Status::Corruption, &Status::IsCorruption, EIO},
      {Code::kNotSupported, &Status::NotSupported, &Status::IsNotSupported, EOPNOTSUPP},
      {Code::kInvalidArgument, &Status::InvalidArgument, &Status::IsInvalidArgument, EINVAL},
      {Code::kIOError, &Status::IOError, &Status::IsIOError, EIO},
      {Code::kNoSpace, &Status::NoSpace, &Status::IsNoSpace, ENOSPC},
      {Code::kBusy, &Status::Busy, &Status::IsBusy, EBUSY},
      {Code::kTooManyOpenZones, &Status::TooManyOpenZones, &Status::IsTooManyOpenZones,
       ETOOMANYREFS},
      {Code::kTooManyActiveZones, &Status::TooManyActiveZones, &Status::IsTooManyActiveZones,
       EOVERFLOW},
      {Code::kReadOnly, &Status::ReadOnly, &Status::IsReadOnly, EROFS},
      {Code::kAlreadyExists, &Status::AlreadyExists, &Status::IsAlreadyExists, EEXIST},
      {Code::kNoData, &Status::NoData, &Status::IsNoData, ENODATA},
      {Code::kNotEmpty, &Status::NotEmpty, &Status::IsNotEmpty, ENOTEMPTY},
  };
  return cases;
}

int CodeInt(Code c) { return static_cast<int>(c); }

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(CodeInt(s.code()), CodeInt(Code::kOk));
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.errno_value(), 0);
  EXPECT_EQ(s.ToString(), "OK");
  Status ok = Status::OK();
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.ToString(), "OK");
  for (const CodeCase& c : AllErrorCodes()) EXPECT_FALSE((s.*c.is)());
}

TEST(StatusTest, EachFactoryMakesItsCodeOnly) {
  for (const CodeCase& c : AllErrorCodes()) {
    SCOPED_TRACE(Status::CodeName(c.code));
    Status s = c.make("the message");
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(CodeInt(s.code()), CodeInt(c.code));
    EXPECT_EQ(s.message(), "the message");
    for (const CodeCase& other : AllErrorCodes()) {
      EXPECT_EQ((s.*other.is)(), other.code == c.code) << Status::CodeName(other.code);
    }
  }
}

TEST(StatusTest, ErrnoMappingFollowsTable) {
  for (const CodeCase& c : AllErrorCodes()) {
    Status s = c.make("x");
    EXPECT_EQ(s.errno_value(), c.err) << Status::CodeName(c.code);
    EXPECT_GT(s.errno_value(), 0);
  }
}

TEST(StatusTest, CodeNamesAreDistinctAndNonEmpty) {
  std::set<std::string> names;
  names.insert(Status::CodeName(Code::kOk));
  for (const CodeCase& c : AllErrorCodes()) {
    const char* name = Status::CodeName(c.code);
    ASSERT_NE(name, nullptr);
    EXPECT_GT(std::string(name).size(), 0u);
    names.insert(name);
  }
  EXPECT_EQ(names.size(), AllErrorCodes().size() + 1);
}

TEST(StatusTest, ToStringIsCodeNameColonMessage) {
  for (const CodeCase& c : AllErrorCodes()) {
    Status s = c.make("disk on fire");
    EXPECT_EQ(s.ToString(), std::string(Status::CodeName(c.code)) + ": disk on fire");
  }
}

TEST(StatusTest, EmptyMessageIsStillAnError) {
  Status s = Status::IOError("");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, FromErrnoMapsToClosestCode) {
  struct {
    int err;
    Code code;
  } cases[] = {
      {ENOENT, Code::kNotFound},      {EINVAL, Code::kInvalidArgument},
      {EIO, Code::kIOError},          {ENOSPC, Code::kNoSpace},
      {EBUSY, Code::kBusy},           {EEXIST, Code::kAlreadyExists},
      {EROFS, Code::kReadOnly},       {EOPNOTSUPP, Code::kNotSupported},
      {ETOOMANYREFS, Code::kTooManyOpenZones}, {ENODATA, Code::kNoData},
      {ENOTEMPTY, Code::kNotEmpty},
  };
  for (const auto& c : cases) {
    Status s = Status::FromErrno(c.err, "pwrite /dev/sdz");
    EXPECT_EQ(CodeInt(s.code()), CodeInt(c.code))
        << "errno " << c.err << " -> " << s.ToString();
    EXPECT_NE(s.message().find("pwrite /dev/sdz"), std::string::npos) << s.ToString();
    EXPECT_FALSE(s.ok());
  }
}

TEST(StatusTest, FromErrnoOfUnlistedErrnoIsAnError) {
  Status s = Status::FromErrno(EPERM, "open");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("open"), std::string::npos) << s.ToString();
}

TEST(StatusTest, WithContextPrefixesMessage) {
  Status s = Status::NotFound("no such zone");
  Status c = s.WithContext("ReportZones");
  EXPECT_TRUE(c.IsNotFound());
  EXPECT_EQ(c.message(), "ReportZones: no such zone");
  EXPECT_EQ(c.ToString(), std::string(Status::CodeName(Code::kNotFound)) +
                              ": ReportZones: no such zone");
  // The original is unchanged.
  EXPECT_EQ(s.message(), "no such zone");
  // Nesting.
  EXPECT_EQ(c.WithContext("mount").message(), "mount: ReportZones: no such zone");
}

TEST(StatusTest, WithContextOnOkStaysOk) {
  Status ok;
  Status c = ok.WithContext("anything");
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.message(), "");
  EXPECT_EQ(c.ToString(), "OK");
}

TEST(StatusTest, CopyIsDeepAndIndependent) {
  Status a = Status::Corruption("bad crc");
  Status b(a);
  EXPECT_TRUE(b.IsCorruption());
  EXPECT_EQ(b.message(), "bad crc");
  a = Status::Busy("locked");
  EXPECT_TRUE(b.IsCorruption());
  EXPECT_EQ(b.message(), "bad crc");
  EXPECT_TRUE(a.IsBusy());

  Status c;
  c = b;
  EXPECT_TRUE(c.IsCorruption());
  EXPECT_EQ(c.message(), "bad crc");
  b = Status::OK();
  EXPECT_TRUE(b.ok());
  EXPECT_TRUE(c.IsCorruption());

  // Copying OK over an error and an error over OK.
  Status d = Status::NoSpace("full");
  d = Status();
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(d.message(), "");
  Status e;
  Status f = Status::ReadOnly("ro");
  e = f;
  EXPECT_TRUE(e.IsReadOnly());
  EXPECT_EQ(f.message(), "ro");

  // Self-assignment keeps the value.
  Status& self = e;
  e = self;
  EXPECT_TRUE(e.IsReadOnly());
  EXPECT_EQ(e.message(), "ro");
}

TEST(StatusTest, MoveTransfersValue) {
  Status a = Status::AlreadyExists("exists");
  Status b(std::move(a));
  EXPECT_TRUE(b.IsAlreadyExists());
  EXPECT_EQ(b.message(), "exists");
  Status c;
  c = std::move(b);
  EXPECT_TRUE(c.IsAlreadyExists());
  EXPECT_EQ(c.message(), "exists");
}

TEST(ResultTest, HoldsValue) {
  Result<int> r(42);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
  r.value() = 7;
  EXPECT_EQ(*r, 7);
  const Result<int>& cr = r;
  EXPECT_EQ(cr.value(), 7);
}

TEST(ResultTest, HoldsStatus) {
  Result<int> r(Status::NoSpace("zone full"));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNoSpace());
  EXPECT_EQ(r.status().message(), "zone full");
}

TEST(ResultTest, ArrowAndMoveOnlyValues) {
  Result<std::string> s(std::string("hello"));
  EXPECT_EQ(s->size(), 5u);
  Result<std::unique_ptr<int>> p(std::make_unique<int>(5));
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> taken = std::move(p).value();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 5);
}

TEST(ResultDeathTest, BuildingFromOkStatusAborts) {
  EXPECT_DEATH({ Result<int> r(Status::OK()); (void)r; }, "");
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  EXPECT_DEATH(
      {
        Result<int> r(Status::IOError("x"));
        int v = r.value();
        (void)v;
      },
      "");
}

Result<int> ParseDigit(char c) {
  if (c < '0' || c > '9') return Status::InvalidArgument(std::string("not a digit: ") + c);
  return c - '0';
}

Status SumDigits(const std::string& s, int* out, int* steps) {
  int sum = 0;
  for (char c : s) {
    SMR_ASSIGN_OR_RETURN(int d, ParseDigit(c));
    ++*steps;
    sum += d;
  }
  *out = sum;
  return Status::OK();
}

Result<int> TwoDigits(char a, char b) {
  SMR_ASSIGN_OR_RETURN(int x, ParseDigit(a));
  SMR_ASSIGN_OR_RETURN(int y, ParseDigit(b));
  return x * 10 + y;
}

TEST(ResultTest, AssignOrReturnAssignsOnSuccess) {
  int out = -1;
  int steps = 0;
  ASSERT_TRUE(SumDigits("1234", &out, &steps).ok());
  EXPECT_EQ(out, 10);
  EXPECT_EQ(steps, 4);
  Result<int> r = TwoDigits('4', '2');
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
}

TEST(ResultTest, AssignOrReturnReturnsErrorEarly) {
  int out = -1;
  int steps = 0;
  Status s = SumDigits("12x4", &out, &steps);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "not a digit: x");
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(out, -1);
  Result<int> r = TwoDigits('4', 'q');
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

TEST(ResultTest, AssignOrReturnWorksWithMoveOnlyTypes) {
  auto make = [](bool ok) -> Result<std::unique_ptr<int>> {
    if (!ok) return Status::NotFound("none");
    return std::make_unique<int>(9);
  };
  auto use = [&](bool ok, int* out) -> Status {
    SMR_ASSIGN_OR_RETURN(std::unique_ptr<int> p, make(ok));
    *out = *p;
    return Status::OK();
  };
  int v = 0;
  EXPECT_TRUE(use(true, &v).ok());
  EXPECT_EQ(v, 9);
  EXPECT_TRUE(use(false, &v).IsNotFound());
}

Status Step(int* counter, Status result) {
  ++*counter;
  return result;
}

Status RunSteps(int* counter, bool fail_second) {
  SMR_RETURN_IF_ERROR(Step(counter, Status::OK()));
  SMR_RETURN_IF_ERROR(Step(counter, fail_second ? Status::Busy("held") : Status::OK()));
  SMR_RETURN_IF_ERROR(Step(counter, Status::OK()));
  return Status::OK();
}

TEST(StatusMacroTest, ReturnIfErrorPassesOkThrough) {
  int counter = 0;
  EXPECT_TRUE(RunSteps(&counter, false).ok());
  EXPECT_EQ(counter, 3);  // every expression evaluated exactly once
}

TEST(StatusMacroTest, ReturnIfErrorReturnsFirstError) {
  int counter = 0;
  Status s = RunSteps(&counter, true);
  EXPECT_TRUE(s.IsBusy());
  EXPECT_EQ(s.message(), "held");
  EXPECT_EQ(counter, 2);
}

TEST(StatusMacroTest, ReturnIfErrorInsideIfElse) {
  auto f = [](bool fail) -> Status {
    if (fail)
      SMR_RETURN_IF_ERROR(Status::IOError("a"));
    else
      SMR_RETURN_IF_ERROR(Status::OK());
    return Status::NotFound("end");
  };
  EXPECT_TRUE(f(true).IsIOError());
  EXPECT_TRUE(f(false).IsNotFound());
}

}  // namespace
}  // namespace smr
