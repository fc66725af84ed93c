"""Chinese table questions and Chinese headers read in the planner's English words (issue 57), and a
Chinese question searched by those words too where the embedder reads no Chinese (``searched``).

``gloss`` rewrites the Chinese of a question, a header or a cell into the words the planner reads, so
"2013年西雅图的总降水量是多少？" plans as "in 2013 西雅图 的 total precipitation" does, and a header
"太阳黑子数" is matched by "sunspot number" as by "太阳黑子数". First the dates ("2015年7月" → 2015-07,
"1980年以来" → since 1980, "2005年到2009年" → from 2005 to 2009), then the count of a top k ("最高的三辆车" →
最高的 first 3 车, "前两名" → first 2: a number, in figures or 一…十/两, and a measure word after a
superlative's 的 or after 前), then the longest entry of ``GLOSSES``
at each place; what no entry covers stays as written (a place name the file is about, "西雅图", is then
no English word the table lacks). jieba's segmentation is not used here: it cuts across the entries
("有多少天下雪" → 天下, "太阳黑子数是" → 数是).

``GLOSSES`` is data, not rules: the words of table questions (operations, time, counting) and the
common names of measures, kinds, directions and places that tables use for headers and values, with the
names of countries and world regions in Chinese and Japanese from the Unicode CLDR (``gloss_names.py``,
written by ``bench/tables_gloss.py``; "泰国" and "タイ" → Thailand). Months and quarters are dates
("2025年第一季度" → 2025-Q1, "7月" → in July). A word missing here
leaves its question as unplanned as an English word the table does not hold.
"""

from __future__ import annotations

import re

from kimas_desktop.text.gloss_names import NAMES

__all__ = ["GLOSSES", "gloss", "searched", "written"]

GLOSSES: dict[str, str] = {
    # the question's frame
    "是多少": "", "为多少": "", "有多少": "how many", "多少": "how many", "几": "how many",
    "哪一年": "which year", "哪年": "which year", "哪个月": "which month", "哪一天": "which day",
    "哪个": "which", "哪些": "which", "哪": "which", "什么时候": "when", "何时": "when",
    "总计": "total", "合计": "total", "合計": "total", "总共": "total", "总和": "total", "总": "total", "一共": "total",
    "平均值": "average", "平均": "average", "均值": "average",
    "最高": "highest", "最大": "largest", "最多": "most", "最长": "longest",
    "最低": "lowest", "最小": "smallest", "最少": "fewest", "最短": "shortest",
    "差": "difference", "之间": "", "每个": "for each", "每": "for each",
    "超过": "above", "高于": "above", "大于": "above", "低于": "below", "小于": "below", "少于": "below",
    "以来": "since", "以后": "after", "之后": "after", "以前": "before", "之前": "before",
    # counting words and measure words
    "数量": "number", "个数": "number", "次数": "number", "数": "number",
    "个": "", "只": "", "辆": "", "次": "", "位": "", "名": "", "座": "", "家": "",
    # time
    "年份": "year", "年度": "year", "年": "year", "月份": "month", "日期": "date", "天数": "days",
    "天": "days", "季度": "quarter", "时间": "time",
    # weather
    "最高气温": "maximum temperature", "最低气温": "minimum temperature", "最高温度": "maximum temperature",
    "最低温度": "minimum temperature", "气温": "temperature", "温度": "temperature",
    "降水量": "precipitation", "降水": "precipitation", "降雨量": "precipitation", "降雪量": "snowfall",
    "风速": "wind", "风": "wind", "天气": "weather", "湿度": "humidity",
    "下雪": "snow", "雪": "snow", "下雨": "rain", "雨": "rain", "毛毛雨": "drizzle", "雾": "fog",
    "晴天": "sun", "晴": "sun",
    # money, trade, work
    "股价": "price", "价格": "price", "价钱": "price", "售价": "price", "成本": "cost", "收入": "income",
    "销售额": "sales", "销量": "sales", "利润": "profit", "工资": "wage", "金额": "amount",
    "就业人数": "employment", "就业": "employment", "失业率": "unemployment rate", "失业": "unemployment",
    "通货膨胀率": "inflation", "通货膨胀": "inflation", "通胀率": "inflation", "通胀": "inflation",
    "利率": "interest rate", "人口": "population", "生育率": "fertility rate",
    "国内生产总值": "gdp", "制造业": "manufacturing", "建筑业": "construction", "政府": "government",
    "零售": "retail", "公司": "company", "股票": "stock", "代码": "code", "名称": "name", "名字": "name",
    # energy
    "净发电量": "net generation", "发电量": "generation", "发电": "generation", "电力": "electricity",
    "可再生能源": "renewables", "核能": "nuclear energy", "化石燃料": "fossil fuels", "能源": "source",
    # things and their measures
    "车": "cars", "汽车": "cars", "马力": "horsepower", "气缸": "cylinders", "排量": "displacement",
    "重量": "weight", "加速": "acceleration", "油耗": "miles per gallon", "产地": "origin", "来源": "source",
    "企鹅": "penguins", "物种": "species", "种类": "species", "岛": "island", "岛屿": "island",
    "性别": "sex", "雌性": "female", "雌": "female", "雄性": "male", "雄": "male",
    "体重": "body mass", "喙长": "bill length", "喙深": "bill depth", "鳍长": "flipper length",
    "机场": "airports", "城市": "city", "州": "state", "国家": "country", "纬度": "latitude",
    "经度": "longitude", "太阳黑子": "sunspot", "太阳活动": "sunspot activity",
    # directions, regions and kinds that tables use for headers and values
    "北部": "North", "南部": "South", "东部": "East", "東部": "East", "西部": "West", "中部": "Central",
    "北方": "North", "南方": "South", "东北": "Northeast", "東北": "Northeast", "西北": "Northwest",
    "东南": "Southeast", "東南": "Southeast", "西南": "Southwest",
    "地区": "region", "地區": "region", "区域": "region", "地域": "region", "地点": "site",
    "产品": "product", "製品": "product", "类别": "category", "部门": "department",
    "销售": "sales", "売上高": "sales", "売上": "sales", "产量": "yield",
    "海面温度": "sea surface temperature", "疾病": "disease", "受伤": "wounds", "伤": "wounds",
    "死亡": "deaths", "死于": "died of", "士兵": "soldiers", "人数": "number", "出生率": "fertility rate",
    # Japanese particles: no word of a table
    "の": " ", "は": " ", "を": " ", "が": " ", "で": " ", "に": " ", "どの": "which", "いくつ": "how many",
    # places tables name in their values (beside the CLDR's names in gloss_names.py)
    "美国": "USA", "日本": "Japan", "欧洲": "Europe", "中国": "China", "德国": "Germany",
    "法国": "France", "英国": "United Kingdom", "意大利": "Italy", "加拿大": "Canada",
    "印度": "India", "韩国": "Korea", "俄罗斯": "Russia", "巴西": "Brazil", "澳大利亚": "Australia",
}  # fmt: skip

GLOSSES = NAMES | GLOSSES
_LONGEST = max(len(k) for k in GLOSSES)
_HAN = re.compile(r"[\u3400-\u9fff]")
_YEAR = r"(\d{4})\s*年?"
_QUARTER = r"(?:第\s*([1-4一二三四])\s*季度?|[QqＱ]\s*([1-4]))"
_MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()
_MONTH = r"(1[0-2]|0?[1-9]|十[一二]|[一二三四五六七八九十])\s*月(?!份?\s*[0-9])"


def _n(numeral: str) -> int:
    return "一二三四".find(numeral) + 1 if numeral in "一二三四" else int(numeral)


def _month(numeral: str) -> int:
    return int(numeral) if numeral.isdigit() else _count(numeral)


_DATES = (
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), lambda m: f" {m[1]}-{int(m[2]):02d}-{int(m[3]):02d} "),
    (re.compile(r"(\d{4})\s*年\s*(?:的\s*)?" + _QUARTER), lambda m: f" in {m[1]}-Q{_n(m[2] or m[3])} "),
    (re.compile(r"(?<![\d-])" + _QUARTER), lambda m: f" in the {('first', 'second', 'third', 'fourth')[_n(m[1] or m[2]) - 1]} quarter "),
    (re.compile(_YEAR + r"\s*(?:到|至|—|-|~)\s*" + _YEAR + r"(?:\s*之间)?"), lambda m: f" from {m[1]} to {m[2]} "),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月"), lambda m: f" in {m[1]}-{int(m[2]):02d} "),
    (re.compile(r"(\d{4})\s*年\s*(以来|以后|之后|起|以前|之前)"), lambda m: f" {GLOSSES.get(m[2], 'since')} {m[1]} "),
    (re.compile(r"(\d{4})\s*年"), lambda m: f" in {m[1]} "),
    (re.compile(r"(?<![0-9年])" + _MONTH), lambda m: f" in {_MONTH_NAMES[_month(m[1]) - 1]} "),
)  # fmt: skip


_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_MEASURES = "辆个件家名位种条本只项座部台款所天年"
_COUNT = re.compile(
    r"(最[高多大长低少小短]的|(?<![之以目])前)\s*"  # after a superlative's 的, or 前
    rf"(\d{{1,3}}|[一二两三四五六七八九十]{{1,3}})\s*(?=[{_MEASURES}])"  # the count, then a measure word
)


def _count(numeral: str) -> int:
    """ "3", "三", "两", "十", "十二", "二十" → 3, 3, 2, 10, 12, 20 (0 for what is no count)."""
    if numeral.isdigit():
        return int(numeral)
    tens, _, ones = numeral.partition("十")
    if "十" not in numeral:
        return _DIGITS.get(numeral, 0) if len(numeral) == 1 else 0
    return (_DIGITS.get(tens, 0) if tens else 1) * 10 + (_DIGITS.get(ones, 0) if ones else 0)


def _top_k(m: re.Match[str]) -> str:
    k = _count(m[2])
    return f"{m[1] if m[1] != '前' else ''} first {k} " if k else m[0]


def gloss(text: str) -> str:
    """``text`` with its Chinese dates and words in the planner's English (unchanged without Chinese)."""
    if not _HAN.search(text):
        return text
    for pattern, said in _DATES:
        text = pattern.sub(said, text)
    text = _COUNT.sub(_top_k, text)
    out: list[str] = []
    i = 0
    while i < len(text):
        for n in range(min(_LONGEST, len(text) - i), 0, -1):
            part = text[i : i + n]
            if part in GLOSSES:
                out.append(f" {GLOSSES[part]} ")
                i += n
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def written(word: str, text: str) -> str:
    """What ``text`` writes for ``word`` of its gloss: the longest entry of ``GLOSSES`` in ``text`` that
    reads as ``word`` ("snowfall" → "降雪量" in "2014年的总降雪量是多少？"), for a sentence that names
    the user's own word; ``word`` when there is none."""
    low = word.lower()
    said = [k for k, v in GLOSSES.items() if low in v.lower().split() and k in text]
    return max(said, key=len, default=word)


def searched(text: str) -> str:
    """What a search by words alone looks for: ``text`` and, when it has Chinese, its gloss ("2009年有多少只
    雌性企鹅？" also finds "sex: female; year: 2009" in a table written in English); ``text`` otherwise."""
    said = gloss(text)
    return text if said == text else f"{text} {' '.join(said.split())}"
