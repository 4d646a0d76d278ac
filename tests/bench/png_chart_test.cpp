// The PNG writer and bar charts: a valid PNG (signature, IHDR, chunk CRCs, IDAT size), text
// rendered from the built-in font, and bar heights proportional to their values.
#include <gtest/gtest.h>

#include <zlib.h>

#include <cstring>

#include "bench/png_chart.h"

namespace pet::bench {
namespace {

struct Chunk {
  std::string type;
  std::string data;
};

uint32_t read_u32(const std::string& bytes, size_t at) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 3]));
}

// Splits a PNG stream into chunks, checking the signature and every chunk's CRC on the way.
std::vector<Chunk> read_chunks(const std::string& png) {
  std::vector<Chunk> chunks;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  size_t at = 8;
  while (at + 12 <= png.size()) {
    uint32_t length = read_u32(png, at);
    std::string typed = png.substr(at + 4, 4 + length);
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(typed.data()), static_cast<uInt>(typed.size()));
    EXPECT_EQ(read_u32(png, at + 8 + length), static_cast<uint32_t>(crc)) << "chunk " << typed.substr(0, 4);
    chunks.push_back({typed.substr(0, 4), typed.substr(4)});
    at += 12 + length;
  }
  EXPECT_EQ(at, png.size()) << "trailing bytes after the last chunk";
  return chunks;
}

std::string inflate_all(const std::string& packed, size_t expected_size) {
  std::string raw(expected_size + 16, '\0');
  uLongf size = static_cast<uLongf>(raw.size());
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &size, reinterpret_cast<const Bytef*>(packed.data()),
                       static_cast<uLong>(packed.size())),
            Z_OK);
  raw.resize(size);
  return raw;
}

TEST(PngChart, EncodesAValidPng) {
  RgbImage image(7, 3, {10, 20, 30});
  image.set(6, 2, {255, 0, 128});
  std::string png = encode_png(image);
  std::vector<Chunk> chunks = read_chunks(png);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].type, "IHDR");
  EXPECT_EQ(chunks[1].type, "IDAT");
  EXPECT_EQ(chunks[2].type, "IEND");
  EXPECT_TRUE(chunks[2].data.empty());
  ASSERT_EQ(chunks[0].data.size(), 13u);
  EXPECT_EQ(read_u32(chunks[0].data, 0), 7u);  // width
  EXPECT_EQ(read_u32(chunks[0].data, 4), 3u);  // height
  EXPECT_EQ(chunks[0].data.substr(8), std::string("\x08\x02\x00\x00\x00", 5));  // 8-bit RGB

  std::string raw = inflate_all(chunks[1].data, 3 * (1 + 3 * 7));
  ASSERT_EQ(raw.size(), 3u * (1 + 3 * 7));
  for (int row = 0; row < 3; ++row) {
    EXPECT_EQ(raw[static_cast<size_t>(row) * 22], '\0') << "filter byte of row " << row;
    EXPECT_EQ(std::memcmp(raw.data() + row * 22 + 1, image.pixels.data() + row * 21, 21), 0) << "row " << row;
  }
}

TEST(PngChart, ChartPngHasTheRenderedSize) {
  BarChart chart;
  chart.title = "cost";
  chart.series = {"none", "pet"};
  chart.groups = {{"resnet18\nb1", {1.0, 0.8}}, {"bert_s128\nb16", {1.0, 0.5}}};
  RgbImage image = render_bar_chart(chart);
  std::vector<Chunk> chunks = read_chunks(encode_png(image));
  ASSERT_EQ(chunks.size(), 3u);
  uint32_t width = read_u32(chunks[0].data, 0), height = read_u32(chunks[0].data, 4);
  EXPECT_EQ(width, static_cast<uint32_t>(image.width));
  EXPECT_EQ(height, static_cast<uint32_t>(image.height));
  EXPECT_EQ(inflate_all(chunks[1].data, height * (1 + 3 * width)).size(), height * (1 + 3 * width));
}

// Renders text and draws it back as '#' (ink) and '.' (background), one string per row.
std::vector<std::string> ink(const std::string& text, int width) {
  RgbImage image(width, 7, {255, 255, 255});
  draw_text(image, 0, 0, text, {0, 0, 0});
  std::vector<std::string> rows;
  for (int y = 0; y < 7; ++y) {
    std::string row;
    for (int x = 0; x < width; ++x) row += image.at(x, y) == Rgb{0, 0, 0} ? '#' : '.';
    rows.push_back(row);
  }
  return rows;
}

TEST(PngChart, DrawsTextWithTheBuiltInFont) {
  std::vector<std::string> expected = {
      "#...#...#...",  //
      "#...#.......",  //
      "#...#..##...",  //
      "#####...#...",  //
      "#...#...#...",  //
      "#...#...#...",  //
      "#...#..###..",  //
  };
  EXPECT_EQ(ink("Hi", 12), expected);
  EXPECT_EQ(text_width("Hi"), 11);
  EXPECT_EQ(text_width("Hi", 2), 22);
  EXPECT_EQ(text_width(""), 0);
  EXPECT_EQ(font_glyph('\x01'), font_glyph('?'));
}

TEST(PngChart, NiceCeiling) {
  EXPECT_DOUBLE_EQ(nice_ceiling(1), 1);
  EXPECT_DOUBLE_EQ(nice_ceiling(1.2), 2);
  EXPECT_DOUBLE_EQ(nice_ceiling(2.2), 2.5);
  EXPECT_DOUBLE_EQ(nice_ceiling(4), 5);
  EXPECT_DOUBLE_EQ(nice_ceiling(7), 10);
  EXPECT_DOUBLE_EQ(nice_ceiling(0.3), 0.5);
  EXPECT_DOUBLE_EQ(nice_ceiling(120), 200);
  EXPECT_DOUBLE_EQ(nice_ceiling(0), 1);
}

// The run of `color` pixels going up from just above the axis in column x.
int bar_height_at(const RgbImage& image, int x, int axis_row, Rgb color) {
  int height = 0;
  while (axis_row - 1 - height >= 0 && image.at(x, axis_row - 1 - height) == color) ++height;
  return height;
}

TEST(PngChart, BarHeightsAreProportionalToValues) {
  BarChart chart;
  chart.series = {"none", "taso", "pet"};
  chart.groups = {{"a\nb1", {1.0, 2.0, 4.0}}, {"b\nb1", {3.0, std::nullopt, 0.5}}};
  ChartLayout layout = layout_bar_chart(chart);
  RgbImage image = render_bar_chart(chart);
  EXPECT_DOUBLE_EQ(layout.y_max, 5);
  ASSERT_EQ(layout.bars.size(), 5u) << "the missing value draws no bar";

  int plot_height = layout.plot_bottom - layout.plot_top;
  std::vector<int> expected_heights = {48, 96, 192, 144, 24};  // value / 5 * 240
  for (size_t i = 0; i < layout.bars.size(); ++i) {
    const BarRect& bar = layout.bars[i];
    Rgb color = series_color(bar.series);
    int height = bar_height_at(image, (bar.x0 + bar.x1) / 2, layout.plot_bottom, color);
    EXPECT_EQ(height, expected_heights[i]) << "bar " << i;
    EXPECT_NEAR(height, bar.value / layout.y_max * plot_height, 0.5) << "bar " << i;
    EXPECT_EQ(bar_height_at(image, bar.x0, layout.plot_bottom, color), height) << "left edge of bar " << i;
    EXPECT_NE(image.at(bar.x1, layout.plot_bottom - 1), color) << "gap right of bar " << i;
    EXPECT_EQ(image.at((bar.x0 + bar.x1) / 2, layout.plot_bottom), (Rgb{0, 0, 0})) << "axis under bar " << i;
  }
  // Bars of one group stand side by side, groups left to right.
  EXPECT_LT(layout.bars[0].x1, layout.bars[1].x0);
  EXPECT_LT(layout.bars[2].x1, layout.bars[3].x0);
  EXPECT_EQ(layout.bars[4].series, 2);
}

TEST(PngChart, ValuesAboveAnExplicitAxisTopAreClipped) {
  BarChart chart;
  chart.series = {"pet"};
  chart.groups = {{"a", {2.0}}, {"b", {0.5}}};
  chart.y_max = 1.0;
  ChartLayout layout = layout_bar_chart(chart);
  ASSERT_EQ(layout.bars.size(), 2u);
  EXPECT_EQ(layout.bars[0].top, layout.plot_top);
  EXPECT_EQ(layout.bars[1].bottom - layout.bars[1].top, (layout.plot_bottom - layout.plot_top) / 2);
}

}  // namespace
}  // namespace pet::bench
