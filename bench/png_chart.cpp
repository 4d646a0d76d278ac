// Grouped bar charts: a fixed layout computed first, rasterized second, encoded as PNG with zlib.
#include "bench/png_chart.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <zlib.h>

#include "core/error.h"

namespace pet::bench {
namespace {

constexpr int kGlyphAdvance = 6;  // 5 columns and one of spacing
constexpr int kBarWidth = 14;     // including a 2-pixel gap to the next bar of the group
constexpr int kGroupGap = 16;
constexpr int kPlotHeight = 240;
constexpr int kPlotTop = 64;
constexpr int kTicks = 5;

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGrid{224, 224, 224};
constexpr Rgb kReference{96, 96, 96};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines{""};
  for (char c : text) {
    if (c == '\n') lines.emplace_back();
    else lines.back() += c;
  }
  return lines;
}

int widest_line(const std::string& text) {
  int widest = 0;
  for (const std::string& line : split_lines(text)) widest = std::max(widest, text_width(line));
  return widest;
}

std::string tick_text(double value) { return fmt::format("{:g}", value); }

int legend_width(const BarChart& chart) {
  int width = 0;
  for (const std::string& name : chart.series) width += 12 + text_width(name) + 12;
  return width;
}

void put_u32(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xFF);
}

void put_chunk(std::string& out, const char* type, const std::string& data) {
  put_u32(out, static_cast<uint32_t>(data.size()));
  std::string typed = std::string(type, 4) + data;
  out += typed;
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(typed.data()), static_cast<uInt>(typed.size()));
  put_u32(out, static_cast<uint32_t>(crc));
}

void draw_axes(RgbImage& image, const ChartLayout& layout) {
  int plot_height = layout.plot_bottom - layout.plot_top;
  for (int tick = 0; tick <= kTicks; ++tick) {
    double value = layout.y_max * tick / kTicks;
    int y = layout.plot_bottom - static_cast<int>(std::lround(plot_height * static_cast<double>(tick) / kTicks));
    if (tick > 0) image.fill_rect(layout.plot_left, y, layout.plot_right, y + 1, kGrid);
    image.fill_rect(layout.plot_left - 5, y, layout.plot_left, y + 1, kBlack);
    std::string text = tick_text(value);
    draw_text(image, layout.plot_left - 8 - text_width(text), y - 3, text, kBlack);
  }
  image.fill_rect(layout.plot_left - 1, layout.plot_top, layout.plot_left, layout.plot_bottom + 1, kBlack);
  image.fill_rect(layout.plot_left - 1, layout.plot_bottom, layout.plot_right, layout.plot_bottom + 1, kBlack);
}

void draw_group_labels(RgbImage& image, const BarChart& chart, const ChartLayout& layout) {
  for (size_t group = 0; group < chart.groups.size(); ++group) {
    int left = layout.width, right = 0;
    for (const BarRect& bar : layout.bars)
      if (bar.group == static_cast<int>(group)) left = std::min(left, bar.x0), right = std::max(right, bar.x1);
    int center = (left + right) / 2;
    int y = layout.plot_bottom + 8;
    for (const std::string& line : split_lines(chart.groups[group].label)) {
      draw_text(image, center - text_width(line) / 2, y, line, kBlack);
      y += 10;
    }
  }
}

void draw_legend(RgbImage& image, const BarChart& chart) {
  int x = 10;
  for (size_t series = 0; series < chart.series.size(); ++series) {
    image.fill_rect(x, 34, x + 8, 42, series_color(static_cast<int>(series)));
    draw_text(image, x + 12, 35, chart.series[series], kBlack);
    x += 12 + text_width(chart.series[series]) + 12;
  }
}

void draw_reference_line(RgbImage& image, const ChartLayout& layout, double value) {
  if (!(value >= 0 && value <= layout.y_max)) return;
  int y = layout.plot_bottom -
          static_cast<int>(std::lround((layout.plot_bottom - layout.plot_top) * value / layout.y_max));
  for (int x = layout.plot_left; x < layout.plot_right; x += 6) image.fill_rect(x, y, x + 4, y + 1, kReference);
}

}  // namespace

RgbImage::RgbImage(int w, int h, Rgb fill) : width(w), height(h) {
  PET_CHECK(w > 0 && h > 0, fmt::format("image size {}x{}", w, h));
  pixels.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  fill_rect(0, 0, w, h, fill);
}

Rgb RgbImage::at(int x, int y) const {
  PET_CHECK(x >= 0 && x < width && y >= 0 && y < height, fmt::format("pixel ({}, {})", x, y));
  size_t offset = (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 3;
  return {pixels[offset], pixels[offset + 1], pixels[offset + 2]};
}

void RgbImage::set(int x, int y, Rgb color) {
  if (x < 0 || x >= width || y < 0 || y >= height) return;
  size_t offset = (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 3;
  pixels[offset] = color.r;
  pixels[offset + 1] = color.g;
  pixels[offset + 2] = color.b;
}

void RgbImage::fill_rect(int x0, int y0, int x1, int y1, Rgb color) {
  for (int y = std::max(y0, 0); y < std::min(y1, height); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, width); ++x) set(x, y, color);
}

void draw_text(RgbImage& image, int x, int y, const std::string& text, Rgb color, int scale) {
  for (size_t i = 0; i < text.size(); ++i) {
    std::array<uint8_t, 7> glyph = font_glyph(text[i]);
    int left = x + static_cast<int>(i) * kGlyphAdvance * scale;
    for (int row = 0; row < 7; ++row)
      for (int column = 0; column < 5; ++column)
        if (glyph[static_cast<size_t>(row)] & (0x10 >> column))
          image.fill_rect(left + column * scale, y + row * scale, left + (column + 1) * scale, y + (row + 1) * scale,
                          color);
  }
}

int text_width(const std::string& text, int scale) {
  return text.empty() ? 0 : (static_cast<int>(text.size()) * kGlyphAdvance - 1) * scale;
}

Rgb series_color(int series) {
  static constexpr Rgb kPalette[] = {{120, 120, 120}, {230, 159, 0},  {0, 114, 178}, {0, 158, 115},
                                     {204, 121, 167}, {213, 94, 0},   {86, 180, 233}, {240, 228, 66}};
  constexpr int kCount = static_cast<int>(std::size(kPalette));
  return kPalette[((series % kCount) + kCount) % kCount];
}

double nice_ceiling(double value) {
  if (!(value > 0) || !std::isfinite(value)) return 1;
  double base = std::pow(10.0, std::floor(std::log10(value)));
  for (double multiple : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (multiple * base >= value * (1 - 1e-12)) return multiple * base;
  return 10 * base;
}

ChartLayout layout_bar_chart(const BarChart& chart) {
  ChartLayout layout;
  double data_max = 0;
  for (const BarGroup& group : chart.groups)
    for (const std::optional<double>& value : group.values)
      if (value && std::isfinite(*value)) data_max = std::max(data_max, *value);
  if (chart.reference_line) data_max = std::max(data_max, *chart.reference_line);
  layout.y_max = chart.y_max && *chart.y_max > 0 ? *chart.y_max : nice_ceiling(data_max);

  int tick_width = 0;
  for (int tick = 0; tick <= kTicks; ++tick)
    tick_width = std::max(tick_width, text_width(tick_text(layout.y_max * tick / kTicks)));
  int series = std::max<int>(1, static_cast<int>(chart.series.size()));
  int bars_width = series * kBarWidth;
  int group_width = bars_width + kGroupGap;
  for (const BarGroup& group : chart.groups) group_width = std::max(group_width, widest_line(group.label) + kGroupGap);

  layout.plot_left = 10 + tick_width + 10;
  layout.plot_top = kPlotTop;
  layout.plot_bottom = kPlotTop + kPlotHeight;
  layout.plot_right = layout.plot_left + 4 + static_cast<int>(chart.groups.size()) * group_width;
  layout.width = std::max({layout.plot_right + 10, legend_width(chart) + 20, text_width(chart.title, 2) + 20,
                           text_width(chart.y_label) + 20});
  layout.height = layout.plot_bottom + 32;

  for (size_t g = 0; g < chart.groups.size(); ++g) {
    int group_left = layout.plot_left + 4 + static_cast<int>(g) * group_width + (group_width - bars_width) / 2;
    const std::vector<std::optional<double>>& values = chart.groups[g].values;
    for (size_t s = 0; s < values.size(); ++s) {
      if (!values[s] || !std::isfinite(*values[s])) continue;
      double clamped = std::clamp(*values[s], 0.0, layout.y_max);
      int height = static_cast<int>(std::lround(kPlotHeight * clamped / layout.y_max));
      int x0 = group_left + static_cast<int>(s) * kBarWidth;
      layout.bars.push_back({static_cast<int>(g), static_cast<int>(s), x0, x0 + kBarWidth - 2,
                             layout.plot_bottom - height, layout.plot_bottom, *values[s]});
    }
  }
  return layout;
}

RgbImage render_bar_chart(const BarChart& chart) {
  ChartLayout layout = layout_bar_chart(chart);
  RgbImage image(layout.width, layout.height, kWhite);
  draw_text(image, 10, 8, chart.title, kBlack, 2);
  draw_legend(image, chart);
  draw_text(image, 10, layout.plot_top - 14, chart.y_label, kBlack);
  draw_axes(image, layout);
  for (const BarRect& bar : layout.bars) image.fill_rect(bar.x0, bar.top, bar.x1, bar.bottom, series_color(bar.series));
  if (chart.reference_line) draw_reference_line(image, layout, *chart.reference_line);
  draw_group_labels(image, chart, layout);
  return image;
}

std::string encode_png(const RgbImage& image) {
  std::string raw;
  size_t row_bytes = static_cast<size_t>(image.width) * 3;
  raw.reserve(static_cast<size_t>(image.height) * (row_bytes + 1));
  for (int y = 0; y < image.height; ++y) {
    raw += '\0';  // filter type 0: the row as is
    raw.append(reinterpret_cast<const char*>(image.pixels.data()) + static_cast<size_t>(y) * row_bytes, row_bytes);
  }
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(packed_size, '\0');
  int status = compress(reinterpret_cast<Bytef*>(packed.data()), &packed_size,
                        reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()));
  PET_CHECK(status == Z_OK, fmt::format("zlib compress returned {}", status));
  packed.resize(packed_size);

  std::string header;
  put_u32(header, static_cast<uint32_t>(image.width));
  put_u32(header, static_cast<uint32_t>(image.height));
  header += std::string{8, 2, 0, 0, 0};  // bit depth 8, colour type RGB, deflate, filters, no interlace
  std::string png = "\x89PNG\r\n\x1a\n";
  put_chunk(png, "IHDR", header);
  put_chunk(png, "IDAT", packed);
  put_chunk(png, "IEND", "");
  return png;
}

void write_png(const std::string& path, const RgbImage& image) {
  std::string bytes = encode_png(image);
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw UserError(fmt::format("cannot write the chart '{}'; check that its folder is writable", path));
}

}  // namespace pet::bench
