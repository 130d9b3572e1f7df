// Reports: hostile strings from input files are escaped for every target,
// charts come from gnuplot or say why not.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/unit/compare_csv.hpp"
#include "analysis/compare/comparison.hpp"
#include "analysis/report/charts_gnuplot.hpp"
#include "analysis/history/prometheus_text.hpp"
#include "analysis/report/render.hpp"

namespace ccb {
namespace {

const std::string kEvil = "<script>alert(1)</script>";

Comparison hostile_comparison() {
  std::vector<ResultSet> sets(2);
  for (int k = 0; k < 2; ++k) {
    ResultSet& s = sets[static_cast<std::size_t>(k)];
    s.label = k ? "=HYPERLINK(\"http://x\")" + kEvil : "bare\x1b[31m";
    s.note_env("hardware.host", "node-" + kEvil);
    s.note_env("env.NCCL_SOCKET_IFNAME", kEvil + "\n'); system('rm -rf /");
    s.unread.push_back("x.log:3: " + kEvil);
    for (std::uint64_t b = 8; b <= 1 << 20; b *= 4) {
      ImportedPoint p;
      p.collective = "all_reduce";
      p.dtype = kEvil;
      p.op = "sum";
      p.path = "auto";
      p.memory = "host";
      p.ranks = 2;
      p.nodes = 1;
      p.in_place = 0;
      p.bytes = b;
      p.time_us = 1 + static_cast<double>(b) / (k ? 500.0 : 1000.0);
      p.busbw_gbps = static_cast<double>(b) / (p.time_us * 1e3);
      s.points.push_back(p);
    }
  }
  return compare_sets(std::move(sets), {});
}

TEST(Reports, LongEnvironmentValuesAreNumberedAndGivenInFullBelow) {
  Comparison c = hostile_comparison();
  const std::string cuda = "runtime 13000 driver 0: cudaErrorInsufficientDriver: CUDA driver version is insufficient";
  for (ResultSet& s : c.sets) s.note_env("versions.cuda", cuda);
  const std::string term = render_terminal(build_report(c, {}, {}), false);
  EXPECT_NE(term.find("runtime 13000 driver 0: cudaErrorIns... [1]"), std::string::npos);
  EXPECT_EQ(term.find("[2] versions.cuda"), std::string::npos);  // the same value is listed once
  const std::size_t note = term.find("Long values, in full: [1] versions.cuda: runtime 13000");
  ASSERT_NE(note, std::string::npos);
  EXPECT_GT(note, term.find("versions.cuda "));  // below the table
  std::size_t widest = 0;
  for (std::size_t at = 0, nl; at < term.size(); at = nl + 1) {
    nl = term.find('\n', at);
    if (nl == std::string::npos) nl = term.size();
    widest = std::max(widest, nl - at);
  }
  EXPECT_LE(widest, 160u);
}

// Production (NCCL Inspector) against a measured set: sizes where it is slower
// are named; what noise or an insignificant test cannot call is "cannot tell".
TEST(Reports, ProductionSlowerOnlyWhereTheDataCanTell) {
  const auto production_line = [](Comparison c) {
    const Report r = build_report(c, {}, {});
    for (const Section& s : r.sections)
      for (const std::string& p : s.paragraphs)
        if (p.starts_with("Production: ")) return p;
    return std::string();
  };
  Comparison slow = hostile_comparison();  // set 1 takes twice as long at large sizes
  slow.sets[1].formats = {"NCCL Inspector JSON"};
  const std::string called = production_line(compare_sets(slow.sets, {}));
  EXPECT_NE(called.find("ran slower than"), std::string::npos) << called;
  EXPECT_NE(called.find("without a significance test"), std::string::npos) << called;
  slow.sets[0].oversubscribed = true;
  const std::string noisy = production_line(compare_sets(slow.sets, {}));
  EXPECT_NE(noisy.find("cannot tell whether"), std::string::npos) << noisy;
  EXPECT_EQ(noisy.find("aligned sizes: "), std::string::npos) << noisy;
  slow.sets[0].oversubscribed = false;
  for (ImportedPoint& p : slow.sets[1].points) p.noise = 1;  // every slower size flagged
  const std::string flagged = production_line(compare_sets(slow.sets, {}));
  EXPECT_NE(flagged.find("not slower at any where it can be told; cannot tell at"), std::string::npos) << flagged;
}

// Issue 53: the Summary opens with the answer; 36 runs' "busy before the run"
// flags are one line after it, each kind once (every flag under Inputs).
TEST(Reports, TheSummaryOpensWithTheVerdictAndSaysEachKindOfNoiseOnce) {
  Comparison c = hostile_comparison();
  for (int run = 0; run < 36; ++run)
    c.sets[1].noise.push_back(fmt::format("busy before the run: load average {}.2 on 2 CPUs of vm", 13 + run % 6));
  c.sets[1].noise.push_back("steal: 12% of the CPU time");
  const Report r = build_report(c, {}, {});
  const Section* summary = nullptr;
  for (const Section& s : r.sections)
    if (s.heading == "Summary") summary = &s;
  ASSERT_TRUE(summary);
  ASSERT_GE(summary->paragraphs.size(), 2u);
  EXPECT_NE(summary->paragraphs.front().find("series"), std::string::npos) << summary->paragraphs.front();
  EXPECT_EQ(summary->paragraphs.front().find("Noise"), std::string::npos) << summary->paragraphs.front();
  std::size_t noise_lines = 0;
  for (const std::string& p : summary->paragraphs)
    if (p.starts_with("Noise: ")) {
      ++noise_lines;
      EXPECT_NE(p.find("busy before the run x36 (load average 13.2 on 2 CPUs of vm, ...); steal (12% of the CPU time)"),
                std::string::npos)
          << p;
      EXPECT_LT(p.size(), 300u) << p;
    }
  EXPECT_EQ(noise_lines, 1u);
}

// Issue 53: cut to the terminal's width, two series whose names differ only
// far in (out-of-place vs in-place) must not read alike.
TEST(Reports, CutNamesThatWouldReadAlikeShowWhereTheyDiffer) {
  const std::string common =
      "alltoall float, 64 ranks, 8 nodes, nonblocking MPI calls, " + std::string(120, 'x') + ", ";
  Report r;
  Section s;
  s.heading = "Summary";
  Table t;
  t.header = {"series", "faster"};
  t.left_columns = 1;
  t.rows = {{{common + "out-of-place, path auto, host memory"}, {"a"}},
            {{common + "in-place, path auto, host memory"}, {"b"}}};
  s.tables.push_back(t);
  r.sections.push_back(s);
  const std::string term = render_terminal(r, false);
  const std::size_t out_row = term.find("out-of-place"), in_row = term.find("in-place");
  EXPECT_NE(out_row, std::string::npos) << term;
  EXPECT_NE(in_row, std::string::npos) << term;
  EXPECT_NE(term.find("alltoall"), std::string::npos) << term;  // the start stays
}

TEST(Reports, HtmlEscapesEveryInputString) {
  const Comparison c = hostile_comparison();
  const Report r = build_report(c, {}, {});
  const std::string html = render_html(r, render_charts(r.charts, "/nonexistent/gnuplot"));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("node-&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("Charts are unavailable"), std::string::npos);
  EXPECT_NE(html.find("Everything else in this report is complete"), std::string::npos);
}

TEST(Reports, MarkdownTerminalAndCsvAreSafe) {
  const Comparison c = hostile_comparison();
  const Report r = build_report(c, {}, {});
  const std::string md = render_markdown(r);
  EXPECT_EQ(md.find("<script"), std::string::npos);
  EXPECT_NE(md.find(")&lt;script&gt;alert(1)"), std::string::npos);
  const std::string term = render_terminal(r, false);
  EXPECT_EQ(term.find('\x1b'), std::string::npos);  // no escape sequence from an input reaches the terminal
  EXPECT_NE(term.find("bare?[31m"), std::string::npos);
  const std::string colored = render_terminal(r, true);
  EXPECT_NE(colored.find("\033[31m"), std::string::npos);  // ours: a worse ratio in red
  const std::string csv = compare_csv_text(c);
  EXPECT_NE(csv.find(",\"'=HYPERLINK(\"\"http://x\"\")<script>alert(1)</script>\","), std::string::npos)
      << csv.substr(0, 400);
  EXPECT_EQ(csv.find("\n="), std::string::npos);
  const std::string json = render_json(c, r);
  EXPECT_NE(json.find("\"pairs\""), std::string::npos);
}

TEST(Reports, GnuplotLabelsCannotInject) {
  const std::string l = gnuplot_label("x'\n`reboot`$HOME\\@{}^_&;");
  EXPECT_EQ(l.find_first_of("'\n`$\\@{}^&;\""), std::string::npos);
  EXPECT_LE(gnuplot_label(std::string(500, 'a')).size(), 48u);
}

TEST(Reports, ChartsRenderWithGnuplotWhenInstalled) {
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const Comparison c = hostile_comparison();
  const Report r = build_report(c, {}, {});
  ASSERT_EQ(r.charts.size(), 1u);
  const ChartImages img = render_charts(r.charts);
  ASSERT_TRUE(img.unavailable.empty()) << img.unavailable;
  ASSERT_EQ(img.svg.size(), 3u);
  for (const std::string& svg : img.svg) {
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_EQ(svg.find("<script"), std::string::npos);
    EXPECT_NE(svg.find("=HYPERLINK(?http://x?)?script?alert(1)?/script?"), std::string::npos);
  }
}

// A predicted curve whose interval spans 1e-58 .. 1e58 is drawn with its bars
// cut at 10x, and says so: the measured curves stay readable.
TEST(Reports, ChartsCutUninformativeErrorBars) {
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  ChartGroup g;
  g.title = "all_reduce";
  ChartGroup::Curve measured, predicted;
  measured.label = "bare", predicted.label = "cloud", predicted.predicted = true;
  for (double b : {1024.0, 4096.0, 16384.0}) {
    for (ChartGroup::Curve* c : {&measured, &predicted}) {
      c->bytes.push_back(b), c->time_us.push_back(b / 1000), c->busbw_gbps.push_back(1), c->ratio.push_back(1);
    }
    predicted.time_lo.push_back(b / 1000 * 1e-58), predicted.time_hi.push_back(b / 1000 * 1e58);
  }
  g.curves = {measured, predicted};
  const ChartImages img = render_charts({g});
  ASSERT_TRUE(img.unavailable.empty()) << img.unavailable;
  EXPECT_NE(img.svg[1].find("cut at 10x"), std::string::npos);
  EXPECT_EQ(img.svg[1].find("1e+58"), std::string::npos);
  EXPECT_EQ(img.svg[1].find("e+5"), std::string::npos);  // no axis label in the 1e50s
}

TEST(Reports, Formatting) {
  EXPECT_EQ(format_size(8.0), "8 B");
  EXPECT_EQ(format_size(1048576.0), "1 MiB");
  EXPECT_EQ(format_size(1536.0), "1.5 KiB");
  EXPECT_EQ(format_ratio(1.0344), "1.034x");
  EXPECT_EQ(format_us(12.345), "12.3");
  EXPECT_EQ(format_us(0.0012345), "0.00123");  // never "0.00" for a measured value (issue 53)
  EXPECT_EQ(format_gbps(0.0012), "0.0012");
  EXPECT_EQ(format_gbps(0.0024), "0.0024");
  EXPECT_EQ(format_gbps(14.694), "14.69");
}

}  // namespace
}  // namespace ccb

TEST(Utf8Repaired, KeepsWellFormedTextAndReplacesEveryOtherByte) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(ccb::utf8_repaired("vm-b7 \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"),
            "vm-b7 \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(ccb::utf8_repaired("vm-\xFF\xFE"), "vm-" + fffd + fffd);
  EXPECT_EQ(ccb::utf8_repaired("\xC0\xAF"), fffd + fffd);                        // overlong '/'
  EXPECT_EQ(ccb::utf8_repaired("\xED\xA0\x80"), fffd + fffd + fffd);             // a surrogate
  EXPECT_EQ(ccb::utf8_repaired("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // above U+10FFFF
  EXPECT_EQ(ccb::utf8_repaired("a\xE2\x82"), "a" + fffd + fffd);                 // cut short
  EXPECT_EQ(ccb::prom_label_value("h\xFF\"x"), "h" + fffd + "\\\"x");
}
