"""The explorer in a real browser (Debian's Chromium, headless, driven by Selenium): the page
loads, seed 000's collection renders in DynamoDB's order with its entities told apart, and an
access pattern runs and shows the DynamoDB request it sent.

    python tests/browser/explorer.py http://127.0.0.1:PORT [SCREENSHOT.png]
"""

import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait


def main(base: str, screenshot: str | None) -> None:
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(browser, 20)
    try:
        browser.get(f"{base}/_local/explorer?index=table&pk=CUSTOMER%23123")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#items tbody tr")))
        rows = browser.find_elements(By.CSS_SELECTOR, "#items tbody tr")
        entities = [r.get_attribute("data-entity") for r in rows]
        sort_keys = [r.get_attribute("data-sk") for r in rows]
        assert entities[-1] == "Customer", entities
        assert all(e == "Order" for e in entities[:-1]) and len(entities) >= 4, entities
        assert sort_keys == sorted(sort_keys), sort_keys
        colours = {
            r.find_element(By.CSS_SELECTOR, ".entity").value_of_css_property("background-color")
            for r in (rows[0], rows[-1])
        }
        assert len(colours) == 2, f"two entities, two colours: {colours}"
        parts = rows[-1].find_elements(By.CSS_SELECTOR, "td:nth-child(2) .part")
        assert [p.text for p in parts] == ["CUSTOMER", "123"], [p.text for p in parts]
        listed = browser.find_elements(By.CSS_SELECTOR, "#partitions li")
        assert any(li.get_attribute("data-pk") == "CUSTOMER#123" for li in listed)

        # Run C1 from the catalogue: its answer and its one Query show.
        choice = Select(browser.find_element(By.ID, "pattern"))
        c1 = next(o for o in choice.options if o.text.startswith("C1 "))
        choice.select_by_visible_text(c1.text)
        browser.find_element(By.ID, "run").click()
        wait.until(ec.text_to_be_present_in_element((By.ID, "run-status"), "200"))
        summary = browser.find_element(By.ID, "run-summary").text
        assert summary.startswith("1 DynamoDB request"), summary
        request = browser.find_element(By.CSS_SELECTOR, ".exchange-request").text
        assert "KeyConditionExpression" in request, request
        assert "Query" in browser.find_element(By.CSS_SELECTOR, ".exchange h3").text
        if screenshot:
            browser.get(f"{base}/_local/explorer?index=table&pk=CUSTOMER%23123")
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#items tbody tr")))
            browser.find_element(By.ID, "run").click()
            wait.until(ec.text_to_be_present_in_element((By.ID, "run-status"), "200"))
            browser.save_screenshot(screenshot)
        print(f"browser: the explorer rendered {len(rows)} items of CUSTOMER#123 and ran C1")
    finally:
        browser.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
